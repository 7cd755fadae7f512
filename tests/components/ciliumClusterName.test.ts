// The Cilium cluster name derived from clusterName: valid under Cilium's rule, distinct, stable.
import { expect } from "chai";
import { join } from "path";
import { CILIUM_CLUSTER_NAME, CILIUM_CLUSTER_NAME_MAX, ciliumClusterName } from "../../components/cilium/clusterName";
import { PROJECT_DIR } from "../../cli/plan/examples";
import { CILIUM_LINES } from "../../catalogs/ciliumVersions";
import { helmTemplate } from "../helm";

/** The newest shipped line's published chart: its templates/validate.yaml holds Cilium's own rule. */
function newestChart(): { chart: string; kubeVersion: string } {
  const line = CILIUM_LINES[CILIUM_LINES.length - 1];
  const release = line.releases.find((r) => r.digests)!;
  return {
    chart: join(PROJECT_DIR, "tests", "oracles", "cilium-charts", `cilium-${release.version.slice(1)}.tgz`),
    kubeVersion: `1.${line.kubernetes.newest}.0`,
  };
}

/** Whether Cilium's chart renders with `cluster.name` set to `name` (its validate.yaml refuses bad names). */
function chartAccepts(name: string): boolean | string {
  const { chart, kubeVersion } = newestChart();
  try {
    helmTemplate(chart, { release: "cilium", namespace: "kube-system", kubeVersion, values: { cluster: { name } } });
    return true;
  } catch (e) {
    return String((e as { stderr?: string }).stderr ?? e);
  }
}

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

  it("is accepted by Cilium's own chart for every awkward clusterName (helm template, validate.yaml)", function () {
    this.timeout(120000);
    for (const name of AWKWARD)
      expect(chartAccepts(ciliumClusterName(name)), `${name} → ${ciliumClusterName(name)}`).to.equal(true);
    // The oracle refuses what Cilium refuses: the DNS names themselves, and a name one character too long.
    expect(chartAccepts("dev.k8s.local")).to.match(/cluster name is invalid/);
    expect(chartAccepts("a".repeat(33))).to.match(/cluster name is invalid/);
  });

  it("is what Cilium's chart accepts (its validate.yaml rule, as Cilium states it)", () => {
    // The regular expression of the chart's templates/validate.yaml and ClusterInfo.Validate.
    for (const bad of ["dev.k8s.local", "-a", "a-", "A", "a".repeat(33)]) {
      expect(bad.length <= 32 && CILIUM_CLUSTER_NAME.test(bad), bad).to.equal(false);
    }
  });
});
