/**
 * The reviewed list of intended differences between the program's Cilium objects and what Cilium's chart
 * renders for the same choices: the common ones here, then each Cilium feature's own. The parity test fails
 * on a difference no entry explains, and on an entry nothing needs.
 */
import { CILIUM_FEATURES } from "./features/ciliumFeatures";
import { explainIn, IntendedDifference, NOT_INSTALLED_BY_HELM } from "../k8s/chartDifference";

const SECRETS_SYNC =
  "No policy secrets sync: the program enables no TLS-interception policies, Ingress, Gateway API or BGP, so it " +
  "creates no `cilium-secrets` namespace, grants no access to Secrets there, and gives the operator no " +
  "cluster-wide read of Secrets (the chart's, for that sync).";
const METRICS =
  "No Prometheus endpoints: nothing in the cluster scrapes them, and each would open a host port on every " +
  "node the pod runs on.";
const CHECKSUM =
  "Pods roll when cilium-config changes (the chart does this only with rollOutCiliumPods / operator.rollOutPods).";

const COMMON: readonly IntendedDifference[] = [
  { path: "Namespace/cilium-secrets", reason: SECRETS_SYNC },
  { path: "Role*/cilium-tlsinterception-secrets", reason: SECRETS_SYNC },
  { path: "Role*/cilium-operator-tlsinterception-secrets", reason: SECRETS_SYNC },
  { path: "ConfigMap/cilium-config data.enable-policy-secrets-sync", reason: SECRETS_SYNC },
  { path: "ClusterRole/cilium-operator grants /secrets *", reason: SECRETS_SYNC },
  { path: "ConfigMap/cilium-config data.policy-secrets-*", reason: SECRETS_SYNC },
  { path: "ConfigMap/cilium-config data.enable-metrics", reason: METRICS },
  { path: "ConfigMap/cilium-config data.operator-prometheus-serve-addr", reason: METRICS },
  { path: "ConfigMap/cilium-config data.proxy-prometheus-port", reason: METRICS },
  { path: "Deployment/cilium-operator spec.template.metadata.annotations.prometheus.io/*", reason: METRICS },
  {
    path: "Deployment/cilium-operator spec.template.spec.containers[cilium-operator].ports[prometheus].*",
    reason: METRICS,
  },
  { path: "* spec.template.metadata.annotations.cilium.io/cilium-configmap-checksum", reason: CHECKSUM },
  { path: "* spec.template.metadata.labels.helm.sh/chart", reason: NOT_INSTALLED_BY_HELM },
  {
    path: "DaemonSet/cilium spec.template.spec.containers[cilium-agent].lifecycle.postStart.*",
    reason: "The program never installs the AWS VPC CNI, so there are no aws-node iptables rules to remove.",
  },
  {
    path: "DaemonSet/cilium spec.template.spec.containers[cilium-agent].resources.requests.*",
    reason:
      "The chart sets no requests, so a full node could starve its agent; the program requests 100m CPU and 128Mi " +
      "memory so the scheduler reserves room for the agent on every node and, under CPU contention, the agent's " +
      "weight guarantees it a tenth of a core (kOps requests 25m CPU and 128Mi).",
  },
  {
    path: "Deployment/cilium-operator spec.template.spec.containers[cilium-operator].env[AWS_*",
    reason:
      "In ENI mode the operator takes AWS credentials from the control-plane instance role, never from a Secret of static keys.",
  },
  {
    path: "PodDisruptionBudget/cilium-operator",
    reason: "Node drains evict at most one operator at a time (the chart creates no budget by default).",
  },
];

export const INTENDED_DIFFERENCES: readonly IntendedDifference[] = [
  ...COMMON,
  ...CILIUM_FEATURES.flatMap((feature) => feature.intendedDifferences ?? []),
];

export const explain = (path: string) => explainIn(INTENDED_DIFFERENCES, path);
