// The Cilium cluster name derived from clusterName: valid under Cilium's rule, distinct, stable.
import { expect } from "chai";
import { CILIUM_CLUSTER_NAME, CILIUM_CLUSTER_NAME_MAX, ciliumClusterName } from "../../components/cilium/clusterName";

const prefix40 = "platform-team-production-eu-west-1-abcde"; // 40 characters
const AWKWARD = [
  "dev.k8s.local",
  "dev-k8s-local", // the same characters but for punctuation
  "a.b",
  "1.example.com", // digit-led
  "0123456789.k8s.local",
  "x",
  `${prefix40}.k8s.local`,
  `${prefix40}.example.com`, // shares the 40-character prefix
  `${prefix40}-1.k8s.local`,
  `${prefix40}-2.k8s.local`,
  "a".repeat(63),
  `${"a".repeat(61)}.b`,
  "x--y..z.example.com",
  "cluster-.-.example.com",
];

describe("Cilium cluster name", () => {
  it("is valid under Cilium's rule for every awkward clusterName", () => {
    for (const name of AWKWARD) {
      const derived = ciliumClusterName(name);
      expect(derived, name).to.match(CILIUM_CLUSTER_NAME);
      expect(derived.length, name).to.be.at.most(CILIUM_CLUSTER_NAME_MAX);
    }
  });

  it("is distinct where the names are", () => {
    const derived = AWKWARD.map(ciliumClusterName);
    expect(new Set(derived).size).to.equal(AWKWARD.length);
  });

  it("keeps a readable prefix and is stable across runs", () => {
    expect(ciliumClusterName("dev.k8s.local")).to.match(/^dev-k8s-local-[0-9a-f]{8}$/);
    // A fixed value: a change of the derivation would rename every existing cluster's ENI GC scope.
    expect(ciliumClusterName("dev.k8s.local")).to.equal("dev-k8s-local-e5ddc648");
    expect(ciliumClusterName(`${prefix40}.k8s.local`)).to.match(/^platform-team-productio-[0-9a-f]{8}$/);
  });

  it("is what Cilium's chart accepts (its validate.yaml rule, as Cilium states it)", () => {
    // The regular expression of the chart's templates/validate.yaml and ClusterInfo.Validate.
    for (const bad of ["dev.k8s.local", "-a", "a-", "A", "a".repeat(33)]) {
      expect(bad.length <= 32 && CILIUM_CLUSTER_NAME.test(bad), bad).to.equal(false);
    }
  });
});
