/**
 * What kubeadm and the kubelet are told, as objects built from the bootstrap config and serialised to YAML
 * (kOps encodes its KubeletConfiguration the same way). Values that exist only on the booting node stay
 * `@NAME@` placeholders the bootstrap fills in (`fill_placeholders` in bootstrap/kubeadm.sh).
 */
import { stringify } from "yaml";
import { parseSemver } from "../../catalogs/ciliumVersions";
import { TIMEOUTS } from "../timeouts";
import type { BootstrapConfig } from "./bootstrapConfig";
import { KUBE_APISERVER } from "../wellKnownPorts";
import { JOIN_CREDENTIAL_FILE, KUBERNETES_DIR } from "./nodeFacts";
import { apiServerArgs, API_SERVER_VOLUMES } from "./apiServerConfig";

/**
 * Filled on the node: the instance's private IPv4, and its name from instance metadata (`local-hostname`,
 * EC2's private DNS name).
 */
export const PLACEHOLDERS = {
  nodeIp: "@NODE_IP@",
  nodeName: "@NODE_NAME@",
} as const;

export const CRI_SOCKET = "unix:///run/containerd/containerd.sock";
/** Where the bootstrap writes per-node kubelet patches (max pods), read by kubeadm. */
export const PATCHES_DIRECTORY = `${KUBERNETES_DIR}/patches`;

/** The Kubernetes minor a node runs (35 for 1.35.4). */
export const minorOf = (config: Pick<BootstrapConfig, "kubernetesVersion">): number =>
  parseSemver(config.kubernetesVersion)?.minor ?? 0;

/** kubeadm's config API: v1beta4 from Kubernetes 1.31, v1beta3 before. */
export function kubeadmApiVersion(kubernetesVersion: string): "v1beta3" | "v1beta4" {
  return minorOf({ kubernetesVersion }) >= 31 ? "v1beta4" : "v1beta3";
}

type ExtraArgs = { name: string; value: string }[] | Record<string, string>;

/** Flags in the shape of the config's API: a list of name/value pairs in v1beta4, a map before. */
function extraArgs(config: BootstrapConfig, args: Record<string, string>): ExtraArgs {
  return kubeadmApiVersion(config.kubernetesVersion) === "v1beta4"
    ? Object.entries(args).map(([name, value]) => ({ name, value }))
    : args;
}

/**
 * The AWS cloud controller manager (components/cloudController/) initialises nodes, sets their providerID
 * and addresses, and runs load balancers: the kubelet and controller manager leave that to it.
 */
const EXTERNAL_CLOUD = { "cloud-provider": "external" };

interface NodeRegistration {
  name: string;
  criSocket: string;
  taints: { key: string; effect: string }[];
  kubeletExtraArgs: ExtraArgs;
}

function nodeRegistration(config: BootstrapConfig): NodeRegistration {
  const taints =
    config.role === "control-plane" ? [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] : [];
  // Pods hold secondary addresses of this node's ENIs; the node's own is the primary private IPv4. The kubelet
  // hands it to the cloud controller manager (annotation alpha.kubernetes.io/provided-node-ip), which keeps it
  // first among the instance's addresses.
  const nodeIp: Record<string, string> = config.nodeIpFromMetadata ? { "node-ip": PLACEHOLDERS.nodeIp } : {};
  // The node is named as EC2 names the instance, not after the host name (Ubuntu's is the short ip-10-0-1-2):
  // the AWS cloud controller manager finds a node's instance by its private DNS name (cloud-provider-aws
  // pkg/providers/v1/aws.go), as kOps's hostname-override and Cluster API's nodeRegistration.name do. The
  // kubelet's providerID (bootstrap/kubelet.sh) points it at the instance directly.
  return {
    name: PLACEHOLDERS.nodeName,
    criSocket: CRI_SOCKET,
    taints,
    kubeletExtraArgs: extraArgs(config, { ...EXTERNAL_CLOUD, ...nodeIp }),
  };
}

/**
 * The API server listens on the load balancer's port (kOps's too): a control-plane node reaches
 * `controlPlaneEndpoint` at its own API server (bootstrap/control-plane.sh `pin_api_endpoint`).
 */
const LOCAL_API_ENDPOINT = { bindPort: KUBE_APISERVER };

const kubeadmApi = (config: BootstrapConfig) => `kubeadm.k8s.io/${kubeadmApiVersion(config.kubernetesVersion)}`;
const endpoint = (config: BootstrapConfig) => `${config.apiEndpoint}:${config.apiPort}`;

export function initConfiguration(config: BootstrapConfig): Record<string, unknown> {
  return {
    apiVersion: kubeadmApi(config),
    kind: "InitConfiguration",
    // No token of ours: nothing joins with one. kubeadm's default one goes right after init
    // (bootstrap/node-credentials.sh, retire_bootstrap_tokens).
    nodeRegistration: nodeRegistration(config),
    localAPIEndpoint: LOCAL_API_ENDPOINT,
    patches: { directory: PATCHES_DIRECTORY },
    ...(config.kubeProxy ? {} : { skipPhases: ["addon/kube-proxy"] }),
  };
}

export function clusterConfiguration(config: BootstrapConfig): Record<string, unknown> {
  return {
    apiVersion: kubeadmApi(config),
    kind: "ClusterConfiguration",
    clusterName: config.clusterName,
    kubernetesVersion: `v${config.kubernetesVersion}`,
    controlPlaneEndpoint: endpoint(config),
    apiServer: {
      certSANs: config.apiCertSans,
      extraArgs: extraArgs(config, apiServerArgs(minorOf(config))),
      extraVolumes: API_SERVER_VOLUMES,
    },
    controllerManager: { extraArgs: extraArgs(config, EXTERNAL_CLOUD) },
    // Stacked etcd, kubeadm's default: a member on each control-plane node, in /var/lib/etcd on its root volume.
    networking: {
      serviceSubnet: config.serviceCIDR,
      ...(config.podCIDR ? { podSubnet: config.podCIDR } : {}),
    },
    // Kept in the cluster's kubeadm-config: kubeadm's upgrades then leave kube-proxy out too
    // (cmd/phases/upgrade/addons.go). v1beta3 has no such field; init's skipPhases says it there.
    ...(config.kubeProxy || kubeadmApiVersion(config.kubernetesVersion) === "v1beta3"
      ? {}
      : { proxy: { disabled: true } }),
  };
}

export function kubeletConfiguration(): Record<string, unknown> {
  return {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    cgroupDriver: "systemd",
    // A serving certificate the cluster CA signs, for the node's own addresses, approved by the control plane
    // against EC2 (bootstrap/kubelet-serving.sh); the API server checks it (apiServerConfig.ts).
    serverTLSBootstrap: true,
    shutdownGracePeriod: `${TIMEOUTS.nodes.kubeletShutdownGracePeriodSeconds}s`,
    shutdownGracePeriodCriticalPods: `${TIMEOUTS.nodes.kubeletShutdownGracePeriodCriticalPodsSeconds}s`,
  };
}

export function joinConfiguration(config: BootstrapConfig): Record<string, unknown> {
  return {
    apiVersion: kubeadmApi(config),
    kind: "JoinConfiguration",
    // The node's credential for its own name (bootstrap/node-credentials.sh): the cluster's address and CA,
    // and the client certificate the kubelet requests its own with. No bootstrap token: none exists.
    discovery: { file: { kubeConfigPath: JOIN_CREDENTIAL_FILE } },
    nodeRegistration: nodeRegistration(config),
    patches: { directory: PATCHES_DIRECTORY },
    ...(config.role === "control-plane" ? { controlPlane: { localAPIEndpoint: LOCAL_API_ENDPOINT } } : {}),
    // Joining control-plane nodes queue for etcd's one learner (components/timeouts.ts); v1beta3 has no field.
    ...(config.role === "control-plane" && kubeadmApiVersion(config.kubernetesVersion) === "v1beta4"
      ? { timeouts: { etcdAPICall: `${TIMEOUTS.nodes.etcdApiCallSeconds}s` } }
      : {}),
  };
}

const toYaml = (documents: Record<string, unknown>[]) =>
  documents.map((d) => stringify(d, { lineWidth: 0 })).join("---\n");

/** The kubeadm configuration files of a group, by the name the bootstrap's function gives them. */
export function kubeadmConfigurations(config: BootstrapConfig): { init?: string; join: string } {
  const join = toYaml([joinConfiguration(config)]);
  if (config.role !== "control-plane") return { join };
  return {
    init: toYaml([initConfiguration(config), clusterConfiguration(config), kubeletConfiguration()]),
    join,
  };
}
