// CiliumAddon: the rendered objects per IPAM mode and version, their schema validity, and the declared resources.
import { expect } from "chai";
import { createHash } from "crypto";
import { join } from "path";
import { configChecksum, renderCiliumConfig } from "../../components/cilium/configMap";
import type { K8sObject } from "../../components/k8s/object";
import { ciliumClusterName } from "../../components/cilium/clusterName";
import { renderCiliumManifests } from "../../components/cilium/ciliumManifests";
import { OPERATOR_TOLERATIONS } from "../../components/cilium/operator";
import { recordedRelease } from "../../catalogs/ciliumVersions";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { loadStackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../components/clusterConfigValidation";
import type { ClusterSpec } from "../../config/types";
import { merge, Raw, specWith } from "../fixtures";
import { validateAgainstSchema } from "../k8sSchemas";
import { mockId } from "../../cli/plan/mocks";
import type { PlannedResource } from "../../cli/plan/run";
import { declaredBy, inputs, named, ofType, planWith } from "../planHelpers";

const ENDPOINT = "api-dev.elb.us-east-1.amazonaws.com";
const DIGESTS_1_20_0 = recordedRelease("v1.20.0")!.digests!;

const modes: Record<string, Raw> = {
  default: { networking: { cilium: { ipam: "", disableMasquerade: false } } },
  crd: { networking: { cilium: { ipam: "crd", disableMasquerade: false } } },
  eni: {},
};
const all = (spec: ClusterSpec): K8sObject[] => {
  const m = renderCiliumManifests(spec, ENDPOINT);
  return [...m.foundation, ...m.workloads];
};
const find = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name)!;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const podSpec = (o: K8sObject): any => (o.spec as any).template.spec;

describe("Cilium manifests", () => {
  it("validate against the Kubernetes OpenAPI schemas, for every example", () => {
    for (const example of examples()) {
      const config = toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file));
      const { raw, region } = readRawConfig(config);
      const { spec } = validateConfig(raw, region);
      for (const object of all(spec)) {
        expect(
          () => validateAgainstSchema(object),
          `${example.name}: ${object.kind} ${object.metadata.name}`,
        ).not.to.throw();
      }
    }
  });

  it("ship no CRDs and no key Cilium has removed", () => {
    for (const edit of Object.values(modes)) {
      const objects = all(specWith(edit));
      expect(objects.map((o) => o.kind)).not.to.include("CustomResourceDefinition");
      expect(find(objects, "ConfigMap", "cilium-config").data).not.to.have.property("blacklist-conflicting-routes");
    }
  });

  it("render cilium-config per IPAM mode", () => {
    const data = (name: string) => renderCiliumConfig(specWith(modes[name]));
    const common = {
      "identity-allocation-mode": "crd",
      "cluster-name": ciliumClusterName("dev.k8s.local"),
      "write-cni-conf-when-ready": "/host/etc/cni/net.d/05-cilium.conflist",
    };
    expect(data("default")).to.include({
      ...common,
      ipam: "kubernetes",
      "routing-mode": "tunnel",
      "tunnel-protocol": "vxlan",
      "enable-ipv4-masquerade": "true",
    });
    expect(data("crd")).to.include({ ...common, ipam: "crd", "routing-mode": "tunnel" });
    expect(data("eni")).to.include({
      ...common,
      ipam: "eni",
      "enable-endpoint-routes": "true",
      "auto-create-cilium-node-resource": "true",
      "routing-mode": "native",
      "enable-ipv4-masquerade": "false",
    });
    expect(JSON.parse(data("eni")["eni-tags"])).to.deep.equal({ KubernetesCluster: "dev.k8s.local" });
    expect(JSON.parse(data("eni")["eni-gc-tags"])).to.deep.equal({
      "io.cilium/cilium-managed": "true",
      "io.cilium/cluster-name": ciliumClusterName("dev.k8s.local"),
    });
    expect(data("eni")["subnet-tags-filter"]).to.equal("cilium-cluster/node-subnet=1");
    const eniOnly = ["enable-endpoint-routes", "auto-create-cilium-node-resource", "eni-tags", "eni-gc-tags"];
    for (const key of [...eniOnly, "subnet-tags-filter"]) {
      expect(data("default")).not.to.have.property(key);
      expect(data("crd")).not.to.have.property(key);
    }
    // Named as the chart names it, though native routing ignores it.
    expect(data("eni")["tunnel-protocol"]).to.equal("vxlan");
  });

  it("carry the cloud labels in eni-tags, and the NodePort setting in kube-proxy-replacement", () => {
    const eni = renderCiliumConfig(specWith({ cloudLabels: { team: "a b=c:d" } }));
    expect(JSON.parse(eni["eni-tags"])).to.deep.equal({ KubernetesCluster: "dev.k8s.local", team: "a b=c:d" });
    expect(eni["kube-proxy-replacement"]).to.equal("false");
    const replaced = renderCiliumConfig(
      specWith({ networking: { cilium: { enableNodePort: true } }, kubeProxy: { enabled: false } }),
    );
    expect(replaced["kube-proxy-replacement"]).to.equal("true");
  });

  it("apply extraConfig last, over rendered keys", () => {
    const data = renderCiliumConfig(
      specWith({ networking: { cilium: { extraConfig: { debug: "true", "bpf-lb-algorithm": "maglev" } } } }),
    );
    expect(data).to.include({ debug: "true", "bpf-lb-algorithm": "maglev" });
  });

  it("run the operator image for the IPAM mode, pinned by digest; in ENI mode on the control plane", () => {
    for (const [mode, edit] of Object.entries(modes)) {
      const operator = podSpec(
        find(
          all(specWith(merge(edit, { networking: { cilium: { version: "v1.20.0" } } }))),
          "Deployment",
          "cilium-operator",
        ),
      );
      const variant = mode === "eni" ? "aws" : "generic";
      const digest = mode === "eni" ? DIGESTS_1_20_0.operatorAws : DIGESTS_1_20_0.operatorGeneric;
      expect(operator.containers[0].image).to.equal(`quay.io/cilium/operator-${variant}:v1.20.0@${digest}`);
      expect(operator.containers[0].command).to.deep.equal([`cilium-operator-${variant}`]);
      expect(operator.tolerations).to.deep.equal(OPERATOR_TOLERATIONS);
      expect(operator.nodeSelector).to.deep.equal(
        mode === "eni"
          ? { "kubernetes.io/os": "linux", "node-role.kubernetes.io/control-plane": "" }
          : { "kubernetes.io/os": "linux" },
      );
    }
  });

  it("run one operator with one control-plane node and two with three", () => {
    const replicas = (edit: Raw) =>
      (find(all(specWith(edit)), "Deployment", "cilium-operator").spec as { replicas: number }).replicas;
    expect(replicas({})).to.equal(1);
    expect(replicas({ controlPlane: { count: 3 } })).to.equal(2);
  });

  it("pin images to the configured release and render the version line's own objects", () => {
    const v118 = all(specWith({ kubernetesVersion: "1.32.0", networking: { cilium: { version: "v1.18.14" } } }));
    // No chart (so no digest) at hand for v1.18.14: the tag alone.
    expect(podSpec(find(v118, "DaemonSet", "cilium")).containers[0].image).to.equal("quay.io/cilium/cilium:v1.18.14");
    expect(v118.map((o) => o.metadata.name)).not.to.include("cilium-operator-ztunnel");
    expect(
      all(specWith({}))
        .filter((o) => o.metadata.name === "cilium-operator-ztunnel")
        .map((o) => o.kind),
    ).to.deep.equal(["Role", "RoleBinding"]);
    for (const o of all(specWith({}))) expect(JSON.stringify(o)).not.to.contain(":latest");
  });

  it("point agents and operator at the API load balancer, reachable before the CNI", () => {
    const objects = all(specWith({}));
    const env = { name: "KUBERNETES_SERVICE_HOST", value: ENDPOINT };
    const agent = podSpec(find(objects, "DaemonSet", "cilium"));
    expect(agent.containers[0].env).to.deep.include(env);
    expect(agent.initContainers.find((c: { name: string }) => c.name === "config").env).to.deep.include(env);
    expect(podSpec(find(objects, "Deployment", "cilium-operator")).containers[0].env).to.deep.include(env);
  });

  it("annotate pod templates with the ConfigMap checksum, which changes exactly when the data does", () => {
    const checksum = (edit: Raw) => {
      const m = renderCiliumManifests(specWith(edit), ENDPOINT);
      const data = find(m.foundation, "ConfigMap", "cilium-config").data as Record<string, string>;
      for (const kind of ["DaemonSet", "Deployment"]) {
        const template = (
          m.workloads.find((o) => o.kind === kind)!.spec as {
            template: { metadata: { annotations: Record<string, string> } };
          }
        ).template;
        expect(template.metadata.annotations["cilium.io/cilium-configmap-checksum"]).to.equal(m.configChecksum);
      }
      expect(m.configChecksum).to.equal(configChecksum(data));
      return m.configChecksum;
    };
    const base = checksum({});
    expect(base).to.match(/^[0-9a-f]{64}$/);
    expect(base).to.equal(
      createHash("sha256")
        .update(JSON.stringify(Object.entries(renderCiliumConfig(specWith({}))).sort()))
        .digest("hex"),
    );
    expect(checksum({ nodeGroups: [{ name: "nodes", maxSize: 9 }] })).to.equal(base);
    expect(checksum({ networking: { cilium: { extraConfig: { debug: "true" } } } })).not.to.equal(base);
    expect(checksum({ cloudLabels: { team: "x" } })).not.to.equal(base);
  });

  it("keep agents running through an API outage and give a first start time", () => {
    for (const version of ["v1.18.14", "v1.19.8", "v1.20.2"]) {
      const spec = specWith({ kubernetesVersion: "1.33.5", networking: { cilium: { version } } });
      const agent = podSpec(find(all(spec), "DaemonSet", "cilium")).containers[0];
      expect(agent.livenessProbe.httpGet.httpHeaders).to.deep.include({
        name: "require-k8s-connectivity",
        value: "false",
      });
      expect(agent.startupProbe.failureThreshold * agent.startupProbe.periodSeconds).to.be.at.least(600);
      const env = Object.fromEntries(agent.env.map((e: { name: string; value?: string }) => [e.name, e.value]));
      expect(env).to.include({ KUBE_CLIENT_BACKOFF_BASE: "1", KUBE_CLIENT_BACKOFF_DURATION: "120" });
      expect(env).to.have.property("GOMEMLIMIT");
      expect(renderCiliumConfig(spec)["dnsproxy-enable-transparent-mode"]).to.equal("true");
    }
  });

  it("roll the agent DaemonSet with a rolling update", () => {
    expect(
      (find(all(specWith({})), "DaemonSet", "cilium").spec as { updateStrategy: unknown }).updateStrategy,
    ).to.deep.equal({
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: 2 },
    });
  });
});

describe("CiliumAddon under mocks", () => {
  it("declares its objects through the cluster's provider, workloads after accounts, RBAC and ConfigMap", async () => {
    const plan = await planWith();
    const [provider] = ofType(plan, "pulumi:providers:kubernetes");
    const objects = declaredBy(plan, "cilium-cluster:cilium:CiliumAddon", "cilium");
    const expected = all(specWith({})).map((o) => `${o.kind}/${o.metadata.name}`);
    expect(objects.map((o) => `${inputs(o).kind}/${inputs(o).metadata.name}`)).to.have.members(expected);
    for (const o of objects)
      expect(o.provider, o.name).to.equal(`${provider.urn}::${mockId(provider.type, provider.name)}`);
    const isWorkload = (o: PlannedResource) => /DaemonSet|Deployment|PodDisruptionBudget/.test(o.type);
    const foundation = objects.filter((o) => !isWorkload(o)).map((o) => o.urn);
    for (const workload of objects.filter(isWorkload)) {
      expect(workload.dependencies, workload.name).to.include.members(foundation);
    }
    const daemonSet = inputs(named(plan, "kubernetes:apps/v1:DaemonSet", "cilium-daemonset-cilium"));
    // The internal API load balancer by its stable name: reachable from pods and nodes inside the VPC.
    const host = (daemonSet.spec.template.spec.containers[0].env as { name: string; value?: string }[]).find(
      (e) => e.name === "KUBERNETES_SERVICE_HOST",
    );
    expect(host?.value).to.equal("api.internal.dev.k8s.local");
    expect(plan.outputs.ciliumConfigChecksum).to.match(/^[0-9a-f]{64}$/);
  });
});
