// ENI mode: max pods and the subnet addresses a node takes count the pool addresses Cilium keeps for itself.
import { expect } from "chai";
import { eniMaxPods, eniSubnetAddressesPerNode } from "../../spec/instanceTypes";

describe("ENI capacity", () => {
  // Worked by hand from AWS's limits: pool = ENIs × (addresses − 1); pod-network pods = pool − 2 reserved;
  // max pods = those + 2 host-network pods. Subnet addresses = pod-network pods + 2 reserved + the primary of
  // each ENI needed to hold them.
  const table: [type: string, maxPods: number, subnetAddresses: number][] = [
    ["t3.medium", 15, 15 + 3], // 3 × 5 = 15 pool addresses on 3 ENIs (kOps: 17)
    ["t3.large", 33, 33 + 3], // 3 × 11 = 33 (kOps: 35)
    ["m5.xlarge", 56, 56 + 4], // 4 × 14 = 56 (kOps: 58)
    ["m5.4xlarge", 110, 110 + 4], // capped at 110: 108 pods + 2 reserved = 110 addresses on ⌈110 / 29⌉ = 4 ENIs
    ["unknown.type", 110, 110 + 1],
  ];
  for (const [type, maxPods, addresses] of table) {
    it(`${type}: ${maxPods} pods, ${addresses} subnet addresses`, () => {
      expect(eniMaxPods(type)).to.equal(maxPods);
      expect(eniSubnetAddressesPerNode(type)).to.equal(addresses);
    });
  }
});
