/**
 * The AWS add-ons beside their upstream charts: for a spec, the program's objects and what the chart renders
 * with the same choices (`helm template` of tests/oracles/aws-addons/).
 */
import { join } from "path";
import { cloudControllerRelease } from "../../catalogs/awsAddonReleases";
import { renderCloudControllerManifests } from "../../components/cloudController/cloudControllerManifests";
import {
  nodeTerminationHandlerReplicas,
  renderNodeTerminationHandlerManifests,
} from "../../components/drain/nodeTerminationHandlerManifests";
import { DEFAULT_STORAGE_CLASS, renderEbsCsiManifests } from "../../components/ebsCsi/ebsCsiManifests";
import { EBS_NODE_AFFINITY } from "../../components/ebsCsi/node";
import { TIMEOUTS } from "../../components/timeouts";
import type { ClusterSpec } from "../../config/types";
import { PROJECT_DIR } from "../../cli/plan/examples";
import { helmTemplate } from "../helm";
import type { KubeObject } from "./compare";

const CHARTS = join(PROJECT_DIR, "tests", "oracles", "aws-addons");
const API_HOST = "api.internal.example.com";
const QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/000000000000/dev-k8s-local-nth";

export interface AddonRenders {
  program: (spec: ClusterSpec) => KubeObject[];
  chart: (spec: ClusterSpec) => KubeObject[];
}

/**
 * The APIs the charts ask for (`.Capabilities.APIVersions.Has`) that Helm's own list lacks, by the Kubernetes
 * minor whose API server serves them by default: VolumeAttributesClass is GA, storage.k8s.io/v1, from 1.34
 * (KEP-3751); its v1beta1 is off by default.
 */
const SERVED_FROM_MINOR: Record<string, number> = { "storage.k8s.io/v1/VolumeAttributesClass": 34 };
const servedApis = (spec: ClusterSpec) =>
  Object.entries(SERVED_FROM_MINOR)
    .filter(([, minor]) => Number(spec.kubernetesVersion.split(".")[1]) >= minor)
    .map(([api]) => api);

const render = (chart: string, release: string, spec: ClusterSpec, values: Record<string, unknown>) =>
  helmTemplate(join(CHARTS, chart), {
    release,
    namespace: "kube-system",
    kubeVersion: spec.kubernetesVersion,
    values,
    apiVersions: servedApis(spec),
  });

export const CLOUD_CONTROLLER: AddonRenders = {
  program: (spec) => {
    const r = renderCloudControllerManifests(spec, API_HOST);
    return [...r.foundation, ...r.workloads];
  },
  chart: (spec) =>
    render("aws-cloud-controller-manager-0.0.11.tgz", "aws-cloud-controller-manager", spec, {
      image: { tag: cloudControllerRelease(spec.kubernetesVersion)!.version },
      args: ["--v=2", "--cloud-provider=aws", "--configure-cloud-routes=false"],
    }),
};

export const EBS_CSI_DRIVER: AddonRenders = {
  program: (spec) => {
    const r = renderEbsCsiManifests(spec);
    return [...r.foundation, ...r.workloads];
  },
  chart: (spec) =>
    render("aws-ebs-csi-driver-2.64.0.tgz", "aws-ebs-csi-driver", spec, {
      controller: {
        k8sTagClusterId: spec.clusterName,
        extraVolumeTags: spec.cloudLabels,
        replicaCount: spec.controlPlane.count > 1 ? 2 : 1,
        userAgentExtra: "cilium-cluster",
      },
      node: { enableWindows: false, affinity: EBS_NODE_AFFINITY },
      storageClasses: [
        {
          name: DEFAULT_STORAGE_CLASS,
          annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
          parameters: { type: "gp3", encrypted: "true" },
          allowVolumeExpansion: true,
        },
      ],
    }),
};

/**
 * aws-node-termination-handler in queue mode with kOps's settings (its addon template
 * node-termination-handler.aws/k8s-1.11.yaml.template), on the control plane as kOps places it.
 */
export const NODE_TERMINATION_HANDLER: AddonRenders = {
  program: (spec) => {
    const r = renderNodeTerminationHandlerManifests(spec, QUEUE_URL);
    return [...r.foundation, ...r.workloads];
  },
  chart: (spec) =>
    render("aws-node-termination-handler-0.27.5.tgz", "aws-node-termination-handler", spec, {
      enableSqsTerminationDraining: true,
      queueURL: QUEUE_URL,
      replicas: nodeTerminationHandlerReplicas(spec),
      podDisruptionBudget: { maxUnavailable: 1 },
      nodeSelector: { "node-role.kubernetes.io/control-plane": "" },
      tolerations: [
        { key: "node-role.kubernetes.io/control-plane", operator: "Exists" },
        { key: "node-role.kubernetes.io/master", operator: "Exists" },
        { key: "node.cloudprovider.kubernetes.io/uninitialized", operator: "Exists" },
      ],
      resources: { requests: { cpu: "50m", memory: "64Mi" } },
      jsonLogging: true,
      logFormatVersion: 2,
      emitKubernetesEvents: true,
      managedAsgTag: `kubernetes.io/cluster/${spec.clusterName}`,
      managedTag: `kubernetes.io/cluster/${spec.clusterName}`,
      useProviderId: true,
      excludeFromLoadBalancers: true,
      nodeTerminationGracePeriod: TIMEOUTS.drain.drainAttemptSeconds,
      sqsMsgVisibilityTimeoutSec: TIMEOUTS.drain.messageVisibilitySeconds,
    }),
};

/** The AWS add-ons' renders, by the name of their feature (components/features.ts). */
export const AWS_ADDON_RENDERS: Readonly<Record<string, AddonRenders>> = {
  "aws-cloud-controller": CLOUD_CONTROLLER,
  "ebs-csi-driver": EBS_CSI_DRIVER,
  "node-termination-handler": NODE_TERMINATION_HANDLER,
};
