/**
 * Parity with the AWS add-ons' upstream charts: for every example stack, each add-on of the registry but
 * Cilium (tests/parity/ciliumChart.test.ts) has its chart rendered by Helm with the same choices and compared
 * with what the program renders. Any difference not on the add-on's reviewed list (its feature's
 * `addon.chartDifferences`) fails, and so does an entry no case needs.
 */
import { expect } from "chai";
import { cases } from "./cases";
import { supportedKubernetesRange } from "../../catalogs/ciliumVersions";
import { AddonRenders, AWS_ADDON_RENDERS, EBS_CSI_DRIVER } from "./awsAddonCases";
import { compareObjects } from "./compare";
import { ADDONS } from "../../components/features";
import { explainIn, IntendedDifference } from "../../components/k8s/chartDifference";
import { merge } from "../fixtures";

const AWS_ADDONS = ADDONS.filter((addon) => addon.name !== "cilium");
const ebsCsi = AWS_ADDONS.find((addon) => addon.name === "ebs-csi-driver")!;
const explainEbsCsi = (path: string) => explainIn(ebsCsi.chartDifferences, path);

describe("the AWS add-ons match their upstream charts", function () {
  this.timeout(180000);
  // Every example, and the dev stack on the oldest minor the program supports (before the API served what
  // some chart conditions ask for, such as VolumeAttributesClass).
  const dev = cases().find((c) => c.name === "dev")!;
  const oldest = `1.${supportedKubernetesRange().oldest}.0`;
  const examples = [
    ...cases().filter((c) => !c.name.includes(",")),
    { ...dev, name: `dev on ${oldest}`, spec: { ...dev.spec, kubernetesVersion: oldest } },
  ];

  it("has a chart to compare with for every add-on of the registry", () => {
    expect(AWS_ADDONS.map((addon) => addon.name).filter((name) => !AWS_ADDON_RENDERS[name])).to.deep.equal([]);
  });

  for (const addon of AWS_ADDONS) {
    const renders: AddonRenders | undefined = AWS_ADDON_RENDERS[addon.name];
    if (!renders) continue;
    const used = new Set<IntendedDifference>();
    for (const c of examples) {
      it(`${addon.name}, ${c.name}: Kubernetes ${c.spec.kubernetesVersion}`, () => {
        const { differences, compared } = compareObjects(renders.chart(c.spec), renders.program(c.spec));
        expect(compared).to.be.greaterThan(80);
        const unexplained = differences.filter((d) => {
          const entry = explainIn(addon.chartDifferences, d.path);
          if (entry) used.add(entry);
          return !entry;
        });
        expect(unexplained.map((d) => `${d.path}: chart ${d.chart}, program ${d.program}`)).to.deep.equal([]);
      });
    }
    it(`${addon.name} needs every entry of its intended-differences list`, () => {
      expect(addon.chartDifferences.filter((d) => !used.has(d)).map((d) => d.path)).to.deep.equal([]);
    });
  }

  it("tags volumes as the chart's --k8s-tag-cluster-id and --extra-tags do, with the user's cloud labels", () => {
    const spec = { ...examples[0].spec, cloudLabels: { team: "storage", "cost-center": "42" } };
    const args = (objects: ReturnType<AddonRenders["program"]>) => {
      const deployment = objects.find((o) => o.kind === "Deployment")!;
      const pod = (deployment.spec as { template: { spec: { containers: { name: string; args: string[] }[] } } })
        .template.spec;
      return pod.containers.find((c) => c.name === "ebs-plugin")!.args.filter((a) => /tags|cluster-id/.test(a));
    };
    expect(args(EBS_CSI_DRIVER.program(spec))).to.deep.equal(args(EBS_CSI_DRIVER.chart(spec)));
    expect(args(EBS_CSI_DRIVER.program(spec))).to.deep.equal([
      "--extra-tags=cost-center=42,team=storage",
      `--k8s-tag-cluster-id=${spec.clusterName}`,
    ]);
  });

  it("fails on a difference nobody listed: a controller off the control plane", () => {
    const spec = examples[0].spec;
    const moved = EBS_CSI_DRIVER.program(spec).map((o) =>
      o.kind === "Deployment" ? (merge(o as never, { spec: { replicas: 3 } }) as typeof o) : o,
    );
    const unexplained = compareObjects(EBS_CSI_DRIVER.chart(spec), moved).differences.filter(
      (d) => !explainEbsCsi(d.path),
    );
    expect(unexplained.map((d) => d.path)).to.deep.equal(["Deployment/ebs-csi-controller spec.replicas"]);
  });
});
