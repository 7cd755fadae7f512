// ENI mode: max pods and the subnet addresses a node takes count the pool addresses Cilium keeps for itself.
import { expect } from "chai";
import { eniMaxPods, eniSubnetAddressesPerNode, hostNetworkPods } from "../../spec/instanceTypes";

describe("ENI capacity", () => {
  // Worked by hand from AWS's limits: pool = ENIs × (addresses − 1); pod-network pods = pool − 2 reserved;
  // max pods = those + the host-network pods (the agent, and kube-proxy when it runs: 2 with, 1 without).
  // Subnet addresses = pod-network pods + 2 reserved + the primary of each ENI needed to hold them.
  const table: [type: string, hostNetwork: number, maxPods: number, subnetAddresses: number][] = [
    ["t3.medium", 2, 15, 15 + 3], // 3 × 5 = 15 pool addresses on 3 ENIs (kOps: 17)
    ["t3.medium", 1, 14, 15 + 3], // without kube-proxy: the same addresses, one pod fewer
    ["t3.large", 2, 33, 33 + 3], // 3 × 11 = 33 (kOps: 35)
    ["t3.large", 1, 32, 33 + 3],
    ["m5.xlarge", 2, 56, 56 + 4], // 4 × 14 = 56 (kOps: 58)
    ["m5.xlarge", 1, 55, 56 + 4],
    ["m5.4xlarge", 2, 110, 110 + 4], // capped at 110: 108 pods + 2 reserved = 110 addresses on ⌈110 / 29⌉ = 4 ENIs
    ["m5.4xlarge", 1, 110, 111 + 4], // capped: 109 pods + 2 reserved = 111 addresses on ⌈111 / 29⌉ = 4 ENIs
    ["unknown.type", 2, 110, 110 + 1],
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
