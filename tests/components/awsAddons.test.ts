// The AWS add-ons: schema validity of every object, the cloud controller's release per Kubernetes minor,
// placement, and what each component declares (its children only).
import { expect } from "chai";
import { join } from "path";
import { CLOUD_CONTROLLER_RELEASES, cloudControllerRelease } from "../../catalogs/awsAddonReleases";
import { supportedKubernetesRange } from "../../catalogs/ciliumVersions";
import {
  cloudControllerImage,
  renderCloudControllerManifests,
} from "../../components/cloudController/cloudControllerManifests";
import { renderEbsCsiManifests } from "../../components/ebsCsi/ebsCsiManifests";
import type { K8sObject } from "../../components/k8s/object";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../components/clusterConfigValidation";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { loadStackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { specWith } from "../fixtures";
import { validateAgainstSchema } from "../k8sSchemas";
import { declaredBy, ofType, planWith } from "../planHelpers";

const ENDPOINT = "api.internal.dev.k8s.local";
const staged = (s: { foundation: K8sObject[]; workloads: K8sObject[] }) => [...s.foundation, ...s.workloads];
interface PodSpec {
  nodeSelector: Record<string, string>;
  hostNetwork?: boolean;
  tolerations: unknown[];
}
const podSpec = (objects: K8sObject[], kind: string): PodSpec =>
  (objects.find((o) => o.kind === kind)!.spec as { template: { spec: PodSpec } }).template.spec;

describe("the AWS add-ons' objects", () => {
  it("validate against the Kubernetes OpenAPI schemas, for every example", () => {
    for (const example of examples()) {
      const { raw, region } = readRawConfig(
        toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file)),
      );
      const { spec } = validateConfig(raw, region);
      for (const object of [
        ...staged(renderCloudControllerManifests(spec, ENDPOINT)),
        ...staged(renderEbsCsiManifests(spec)),
      ])
        expect(
          () => validateAgainstSchema(object),
          `${example.name}: ${object.kind} ${object.metadata.name}`,
        ).not.to.throw();
    }
  });

  it("run the cloud controller manager of the cluster's Kubernetes minor, or the one before, for every supported minor", () => {
    const { oldest, newest } = supportedKubernetesRange();
    for (let minor = oldest; minor <= newest; minor++) {
      const release = cloudControllerRelease(`1.${minor}.0`);
      expect(release, `1.${minor}`).not.to.equal(undefined);
      expect([minor, minor - 1], `1.${minor}`).to.include(release!.minor);
      expect(release!.version.startsWith(`v1.${release!.minor}.`)).to.equal(true);
    }
    expect(cloudControllerImage(specWith({ kubernetesVersion: "1.32.9" }))).to.equal(
      "registry.k8s.io/provider-aws/cloud-controller-manager:v1.32.5",
    );
    expect(new Set(CLOUD_CONTROLLER_RELEASES.map((r) => r.minor)).size).to.equal(CLOUD_CONTROLLER_RELEASES.length);
  });

  it("keep the controllers on the control plane and the node plugin on every node", () => {
    const spec = specWith({});
    const ccm = podSpec(staged(renderCloudControllerManifests(spec, ENDPOINT)), "DaemonSet");
    expect(ccm.nodeSelector).to.have.property("node-role.kubernetes.io/control-plane", "");
    expect(ccm.hostNetwork).to.equal(true);
    const ebs = staged(renderEbsCsiManifests(spec));
    expect(podSpec(ebs, "Deployment").nodeSelector).to.have.property("node-role.kubernetes.io/control-plane", "");
    expect(podSpec(ebs, "DaemonSet").nodeSelector).not.to.have.property("node-role.kubernetes.io/control-plane");
    expect(podSpec(ebs, "DaemonSet").tolerations).to.deep.equal([{ operator: "Exists" }]);
  });

  it("make gp3, encrypted, the cluster's one default StorageClass", () => {
    const classes = staged(renderEbsCsiManifests(specWith({}))).filter((o) => o.kind === "StorageClass");
    expect(classes.map((c) => c.metadata.name)).to.deep.equal(["gp3"]);
    expect(classes[0].metadata.annotations).to.deep.equal({ "storageclass.kubernetes.io/is-default-class": "true" });
    expect(classes[0]).to.deep.include({
      provisioner: "ebs.csi.aws.com",
      parameters: { type: "gp3", encrypted: "true" },
    });
  });
});

describe("AwsCloudController and EbsCsiDriver under mocks", () => {
  it("declare each rendered object once, under their own component", async () => {
    const plan = await planWith();
    const spec = specWith({});
    const kinds = (objects: K8sObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
    const declared = (type: string, name: string) =>
      declaredBy(plan, type, name)
        .map((r) => `${String(r.type).split(":").pop()}/${(r.inputs as { metadata: { name: string } }).metadata.name}`)
        .sort();
    expect(declared("cilium-cluster:cloudController:AwsCloudController", "aws-cloud-controller")).to.deep.equal(
      kinds(staged(renderCloudControllerManifests(spec, ENDPOINT))),
    );
    expect(declared("cilium-cluster:ebsCsi:EbsCsiDriver", "ebs-csi-driver")).to.deep.equal(
      kinds(staged(renderEbsCsiManifests(spec))),
    );
  });

  it("declare no EBS CSI driver when it is off", async () => {
    const plan = await planWith({ "addons.ebsCsiDriver.enabled": "false" });
    expect(ofType(plan, "cilium-cluster:ebsCsi:EbsCsiDriver")).to.deep.equal([]);
    expect(ofType(plan, "kubernetes:storage.k8s.io/v1:StorageClass")).to.deep.equal([]);
  });
});
