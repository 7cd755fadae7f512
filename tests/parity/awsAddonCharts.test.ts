/**
 * Parity with the AWS add-ons' upstream charts: for every example stack, the cloud controller manager's and
 * the EBS CSI driver's charts are rendered by Helm with the same choices and compared with what the program
 * renders. Any difference not on the reviewed list fails, and so does an entry no case needs.
 */
import { expect } from "chai";
import { cases } from "./cases";
import { supportedKubernetesRange } from "../../catalogs/ciliumVersions";
import { AddonRenders, CLOUD_CONTROLLER, EBS_CSI_DRIVER, NODE_TERMINATION_HANDLER } from "./awsAddonCases";
import { AWS_ADDON_DIFFERENCES, explainAwsAddon } from "./awsAddonDifferences";
import { compareObjects } from "./compare";
import type { IntendedDifference } from "../../components/cilium/intendedDifference";
import { merge } from "../fixtures";

const ADDONS: Record<string, AddonRenders> = {
  "the AWS cloud controller manager": CLOUD_CONTROLLER,
  "the EBS CSI driver": EBS_CSI_DRIVER,
  "aws-node-termination-handler": NODE_TERMINATION_HANDLER,
};

describe("the AWS add-ons match their upstream charts", function () {
  this.timeout(180000);
  const used = new Set<IntendedDifference>();
  // Every example, and the dev stack on the oldest minor the program supports (before the API served what
  // some chart conditions ask for, such as VolumeAttributesClass).
  const dev = cases().find((c) => c.name === "dev")!;
  const oldest = `1.${supportedKubernetesRange().oldest}.0`;
  const examples = [
    ...cases().filter((c) => !c.name.includes(",")),
    { ...dev, name: `dev on ${oldest}`, spec: { ...dev.spec, kubernetesVersion: oldest } },
  ];

  for (const [addon, renders] of Object.entries(ADDONS))
    for (const c of examples) {
      it(`${addon}, ${c.name}: Kubernetes ${c.spec.kubernetesVersion}`, () => {
        const { differences, compared } = compareObjects(renders.chart(c.spec), renders.program(c.spec));
        expect(compared).to.be.greaterThan(80);
        const unexplained = differences.filter((d) => {
          const entry = explainAwsAddon(d.path);
          if (entry) used.add(entry);
          return !entry;
        });
        expect(unexplained.map((d) => `${d.path}: chart ${d.chart}, program ${d.program}`)).to.deep.equal([]);
      });
    }

  it("needs every entry of the intended-differences list", () => {
    expect(AWS_ADDON_DIFFERENCES.filter((d) => !used.has(d)).map((d) => d.path)).to.deep.equal([]);
  });

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
      (d) => !explainAwsAddon(d.path),
    );
    expect(unexplained.map((d) => d.path)).to.deep.equal(["Deployment/ebs-csi-controller spec.replicas"]);
  });
});
