// The program's own share of each AWS quota validation checks, against what the components declare.
import { expect } from "chai";
import { eniTags } from "../../components/cilium/configMap";
import { securityRules } from "../../components/network/securityRules";
import {
  API_LB_OWN_INBOUND_RULES,
  INBOUND_RULES_PER_SECURITY_GROUP,
  PROGRAM_TAGS_PER_RESOURCE,
  TAGS_PER_RESOURCE,
} from "../../config/quotas";
import type { Plan } from "../../cli/plan/run";
import { specWith } from "../fixtures";
import { inputs, NON_ENI, planWith } from "../planHelpers";

type TagInput = Record<string, string> | { key: string; value: string }[] | undefined;
const keysOf = (tags: TagInput) => (Array.isArray(tags) ? tags.map((t) => t.key) : Object.keys(tags ?? {}));

/** Every tag set the plan puts on a resource: its own tags, and what its launch templates tag at launch. */
function tagSets(plan: Plan): [string, string[]][] {
  return plan.resources.flatMap((r) => {
    const i = inputs(r) ?? {};
    const specs = (i.tagSpecifications ?? []) as { resourceType: string; tags: TagInput }[];
    return [
      [r.name, keysOf(i.tags)] as [string, string[]],
      ...specs.map((s): [string, string[]] => [`${r.name} ${s.resourceType}`, keysOf(s.tags)]),
    ];
  });
}

describe("AWS quotas: the program's own share", () => {
  // Cloud labels of the dev stack: every resource carries them; the rest is the program's.
  const LABELS = ["team", "environment"];

  it("puts at most PROGRAM_TAGS_PER_RESOURCE tags of its own on any resource, in either topology", async () => {
    const plans = [await planWith(), await planWith({ ...NON_ENI, topology: "public" })];
    const own = plans.flatMap(tagSets).map(([name, keys]) => [name, keys.filter((k) => !LABELS.includes(k))] as const);
    const most = Math.max(...own.map(([, keys]) => keys.length));
    expect(most, JSON.stringify(own.filter(([, k]) => k.length === most))).to.equal(PROGRAM_TAGS_PER_RESOURCE);
    // The ENIs Cilium creates: eni-tags (the labels and KubernetesCluster) and Cilium's own two.
    const cilium = Object.keys(JSON.parse(eniTags(specWith({ cloudLabels: {} }))) as object).length + 2;
    expect(cilium).to.be.at.most(PROGRAM_TAGS_PER_RESOURCE);
    expect(TAGS_PER_RESOURCE).to.equal(50);
  });

  it("gives the API load balancer's group API_LB_OWN_INBOUND_RULES inbound rules besides one per api.access CIDR", () => {
    for (const access of [["203.0.113.0/24"], ["203.0.113.0/24", "198.51.100.7/32", "0.0.0.0/0"]]) {
      const inbound = securityRules(specWith({ api: { access } })).filter(
        (r) => r.group === "apiLb" && r.direction === "ingress",
      );
      expect(inbound).to.have.length(API_LB_OWN_INBOUND_RULES + access.length);
    }
    expect(INBOUND_RULES_PER_SECURITY_GROUP).to.equal(60);
  });

  it("fits every other group's inbound rules in the quota with room to spare", () => {
    for (const edit of [{}, { networking: { cilium: { ipam: "", disableMasquerade: false } } }]) {
      const rules = securityRules(specWith(edit));
      for (const group of ["controlPlane", "nodes"] as const) {
        const inbound = rules.filter((r) => r.group === group && r.direction === "ingress");
        expect(inbound.length, group).to.be.below(INBOUND_RULES_PER_SECURITY_GROUP / 4);
      }
    }
  });
});
