// ENI mode: max pods and the subnet addresses a node takes count the pool addresses Cilium keeps for itself.
import { expect } from "chai";
import { eniMaxPods, eniSubnetAddressesPerNode, hostNetworkPods } from "../../catalogs/instanceTypes";

describe("ENI capacity", () => {
  // Worked by hand from AWS's limits: pool = ENIs × (addresses − 1); pod-network pods = pool − 2 reserved;
  // max pods = those + the host-network pods (the agent, and kube-proxy when it runs: 2 with, 1 without).
  // Subnet addresses = min(pod-network pods + 2 reserved + 8 pre-allocated, pool) + the primary of each ENI
  // needed to hold them; an unknown type: 110 pods' worth + 8 on ENIs of 49 pool addresses, at least 3.
  const table: [type: string, hostNetwork: number, maxPods: number, subnetAddresses: number][] = [
    ["t3.medium", 2, 15, 15 + 3], // 3 × 5 = 15 pool addresses on 3 ENIs (kOps: 17); no room to pre-allocate
    ["t3.medium", 1, 14, 15 + 3], // without kube-proxy: the same addresses, one pod fewer
    ["t3.large", 2, 33, 33 + 3], // 3 × 11 = 33 (kOps: 35)
    ["t3.large", 1, 32, 33 + 3],
    ["m5.xlarge", 2, 56, 56 + 4], // 4 × 14 = 56 (kOps: 58)
    ["m5.xlarge", 1, 55, 56 + 4],
    ["m5.4xlarge", 2, 110, 118 + 5], // capped at 110: 108 pods + 2 reserved + 8 = 118 on ⌈118 / 29⌉ = 5 ENIs
    ["m5.4xlarge", 1, 110, 119 + 5], // capped: 109 pods + 2 reserved + 8 = 119 on ⌈119 / 29⌉ = 5 ENIs
    ["unknown.type", 2, 110, 118 + 3], // 108 + 2 + 8 = 118 on ⌈118 / 49⌉ = 3 ENIs
    ["unknown.type", 1, 110, 119 + 3],
  ];
  for (const [type, hostNetwork, maxPods, addresses] of table) {
    it(`${type}, ${hostNetwork} host-network pods: ${maxPods} pods, ${addresses} subnet addresses`, () => {
      expect(eniMaxPods(type, hostNetwork)).to.equal(maxPods);
      expect(eniSubnetAddressesPerNode(type, hostNetwork)).to.equal(addresses);
    });
  }

  it("host-network pods: the agent, and kube-proxy when it runs", () => {
    expect(hostNetworkPods(true)).to.equal(2);
    expect(hostNetworkPods(false)).to.equal(1);
  });
});
