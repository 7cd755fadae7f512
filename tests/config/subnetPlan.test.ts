// The subnet planner: properties over random VPCs and zone counts, and its limits.
import { expect } from "chai";
import fc from "fast-check";
import { contains, formatCidr, overlaps, parseCidr } from "../../config/cidr";
import { MAX_ZONES, planSubnets, SMALLEST_SUBNET_PREFIX } from "../../config/subnetPlan";

const zonesOf = (n: number) => Array.from({ length: n }, (_, i) => `us-east-1${"abcdef"[i]}`);

const vpcArb = (maxPrefix: number) =>
  fc
    .tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 16, max: maxPrefix }))
    .map(([addr, prefix]) => formatCidr({ base: (addr & (0xffffffff << (32 - prefix))) >>> 0, prefix }));

describe("subnet planner", () => {
  for (const topology of ["private", "public"] as const) {
    const maxPrefix = topology === "private" ? 22 : 25;
    it(`${topology}: subnets stay inside the VPC, never overlap, and leave room to grow`, () => {
      fc.assert(
        fc.property(vpcArb(maxPrefix), fc.integer({ min: 1, max: MAX_ZONES }), (vpcText, zoneCount) => {
          const plan = planSubnets(vpcText, zonesOf(zoneCount), topology);
          if ("error" in plan) throw new Error(plan.error);
          const vpc = parseCidr(vpcText)!;
          const cidrs = plan.subnets.map((s) => parseCidr(s.cidr)!);
          expect(plan.subnets).to.have.length(topology === "private" ? 2 * zoneCount : zoneCount);
          for (const c of cidrs) {
            expect(contains(vpc, c)).to.equal(true);
            expect(c.prefix).to.be.at.most(SMALLEST_SUBNET_PREFIX);
          }
          cidrs.forEach((a, i) => cidrs.slice(i + 1).forEach((b) => expect(overlaps(a, b)).to.equal(false)));
          const used = cidrs.reduce((sum, c) => sum + 2 ** (32 - c.prefix), 0);
          expect(used).to.be.at.most(2 ** (32 - vpc.prefix) * (7 / 8)); // an eighth or more stays free
          for (const zone of zonesOf(zoneCount)) {
            const mine = plan.subnets
              .filter((s) => s.zone === zone)
              .map((s) => s.role)
              .sort();
            expect(mine).to.deep.equal(topology === "private" ? ["private", "utility"] : ["public"]);
          }
        }),
        { numRuns: 300 },
      );
    });
  }

  it("gives the private subnet eight times the utility subnet's addresses", () => {
    const plan = planSubnets("10.0.0.0/16", zonesOf(3), "private");
    if ("error" in plan) throw new Error(plan.error);
    expect(plan.subnets.filter((s) => s.zone === "us-east-1b")).to.deep.equal([
      { role: "private", zone: "us-east-1b", cidr: "10.0.32.0/19" },
      { role: "utility", zone: "us-east-1b", cidr: "10.0.228.0/22" },
    ]);
  });

  it("refuses a VPC too small for the topology, naming the smallest that fits", () => {
    const plan = planSubnets("10.0.0.0/23", zonesOf(2), "private");
    expect(plan).to.deep.equal({
      error:
        "a /23 VPC is too small for the private topology: its smallest subnets would be /29, below AWS's minimum of /28; use a /22 or larger",
      largestPrefix: 22,
    });
    expect(planSubnets("10.0.0.0/25", zonesOf(2), "public")).not.to.have.property("error");
    expect(planSubnets("10.0.0.0/26", zonesOf(2), "public")).to.have.property("error");
  });
});

describe("subnet planner: a zone's subnets do not depend on the other zones", () => {
  const ALL = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"];
  const cidrsOf = (zones: string[], topology: "private" | "public") => {
    const plan = planSubnets("10.0.0.0/16", zones, topology);
    if ("error" in plan) throw new Error(plan.error);
    return new Map(plan.subnets.map((s) => [`${s.role} ${s.zone}`, s.cidr]));
  };

  for (const topology of ["private", "public"] as const) {
    it(`${topology}: removing, adding or reordering zones keeps every other zone's CIDRs`, () => {
      const full = cidrsOf(ALL, topology);
      fc.assert(
        fc.property(fc.shuffledSubarray(ALL, { minLength: 1 }), (zones) => {
          for (const [key, cidr] of cidrsOf(zones, topology)) expect(cidr).to.equal(full.get(key));
        }),
        { numRuns: 200 },
      );
    });
  }

  it("zones a, b and c take the first three slots, their utility subnets the first three eighths of the last", () => {
    expect([...cidrsOf(["us-east-1a", "us-east-1b", "us-east-1c"], "private").values()]).to.deep.equal([
      "10.0.0.0/19",
      "10.0.224.0/22",
      "10.0.32.0/19",
      "10.0.228.0/22",
      "10.0.64.0/19",
      "10.0.232.0/22",
    ]);
  });

  it("gives a zone its letter's slot wherever it is listed", () => {
    expect(planSubnets("10.0.0.0/16", ["us-east-1d", "us-east-1b"], "public")).to.deep.equal({
      subnets: [
        { role: "public", zone: "us-east-1d", cidr: "10.0.96.0/19" },
        { role: "public", zone: "us-east-1b", cidr: "10.0.32.0/19" },
      ],
    });
  });

  it("refuses zones without a slot, or two zones with one letter", () => {
    expect(planSubnets("10.0.0.0/16", ["us-east-1h"], "private")).to.deep.equal({
      error: "zones must end in a letter a to g to own a subnet slot: us-east-1h",
    });
    expect(planSubnets("10.0.0.0/16", ["us-east-1a", "us-west-2a"], "public"))
      .to.have.property("error")
      .that.contains("same letter");
  });
});
