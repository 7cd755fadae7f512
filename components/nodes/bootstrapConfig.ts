/**
 * What a node is told at boot (the nodeup config of kOps): a plain object derived from the spec, the
 * instance group and the API endpoint. The user data's header carries the fields its group's script reads
 * (shellHeader.ts), so a change to what a node is told changes the launch template and rolls the group.
 */
import { CILIUM_RESERVED_IPS, hostNetworkPods } from "../../catalogs/instanceTypes";
import type { ClusterSpec } from "../../config/types";
import { instanceCredentialPrefix, secretsKeyAlias } from "./secretPaths";
import { nodeRoleName } from "../iam/roleNames";
import { API_LISTENER } from "../wellKnownPorts";
import type { InstanceGroup } from "./instanceGroups";
import { LAUNCH_HOOK_NAME } from "./lifecycleHooks";
import { eniMode } from "../../config/eniMode";

export interface BootstrapConfig {
  clusterName: string;
  instanceGroup: string;
  role: "control-plane" | "node";
  /** The zone whose control-plane node creates the cluster (`kubeadm init`) when no API server answers. */
  initZone: string;
  kubernetesVersion: string;
  /** The API's stable name inside the cluster (`api.internal.<clusterName>`): kubeadm's control-plane endpoint. */
  apiEndpoint: string;
  /** Names the API server certificate must carry (control plane): the internal and the user-facing endpoint. */
  apiCertSans: string[];
  apiPort: number;
  region: string;
  /** The SSM parameter of the cluster CA's certificate, which the node that created the cluster stores. */
  clusterCaParameter: string;
  /**
   * Where the control plane's shared keys are (a parameter per file, bootstrap/control-plane.sh), stored by the
   * node that created the cluster; empty for workers.
   */
  sharedPkiParameters: string;
  /**
   * Where each worker instance's credential for its own name waits (the prefix of a parameter named by the
   * instance id), written by the control plane, read by that instance alone (bootstrap/node-credentials.sh).
   */
  nodeCredentialsPrefix: string;
  /** The worker role's name, whose id is part of each worker instance's AWS identity; empty for workers. */
  nodeRoleName: string;
  /** The alias of the cluster's KMS key, under which the control plane writes its parameters; empty for workers. */
  secretsKey: string;
  /** Set kubelet `--node-ip` from instance metadata. */
  nodeIpFromMetadata: boolean;
  /** Compute max pods from the instance type's ENI limits (kOps's rule). */
  maxPodsFromEniLimits: boolean;
  /** ENI addresses Cilium keeps for itself, which max pods leaves out. */
  eniAddressesReservedByCilium: number;
  /** Pods on the host network, which max pods adds back: the Cilium agent, and kube-proxy when it runs. */
  hostNetworkPods: number;
  /** The group's launch lifecycle hook, which the node completes once it has joined. */
  launchHook: string;
  /** Leave secondary ENIs to Cilium: systemd-networkd and cloud-init hotplug must not configure them. */
  unmanagedSecondaryEnis: boolean;
  /** Pod range the controller manager splits per node; empty when Cilium allocates from elsewhere. */
  podCIDR: string;
  serviceCIDR: string;
  kubeProxy: boolean;
  /** The SSM parameter that records the cluster was created; empty for workers. */
  initRecord: string;
  /** The SSM parameter that names a snapshot to restore (`npm run restore-snapshot`); empty for workers. */
  restoreRequest: string;
  /** The bucket of etcd snapshots and the minutes between them; empty and 0 for workers. */
  backupBucket: string;
  backupIntervalMinutes: number;
  /** Minutes an etcd member may not answer at a running instance before the leader removes it; 0 for workers. */
  etcdMemberUnhealthyMinutes: number;
  /** The SSM parameter of the cluster's Secrets encryption keys (bootstrap/encryption.sh); empty for workers. */
  encryptionKeys: string;
  /** Pod Security Admission's defaults (`podSecurity`), in the API server's admission file; empty for workers. */
  podSecurityEnforce: string;
  podSecurityWarn: string;
  /** The admin role the control plane's authenticator maps to the admin group (adminAccess); empty for workers. */
  adminRoleArn: string;
}

/**
 * The two API endpoints: `internal` for the cluster itself, `public` for users (the same with an internal API);
 * and `caParameter`, the SSM parameter of the CA certificate a node trusts them by (ControlPlaneState).
 */
export interface ApiEndpoints {
  internal: string;
  public: string;
  caParameter: string;
}

/**
 * What a group's nodes are told of the cluster's config, which is all its launch template reads: the
 * release, the network, Cilium's IPAM, kube-proxy, the control plane, pod security and instance metadata,
 * with the cluster's name, region and labels; never the API's access, the add-ons or the IAM settings.
 */
export type NodeSpec = Pick<
  ClusterSpec,
  | "clusterName"
  | "region"
  | "kubernetesVersion"
  | "network"
  | "kubeProxy"
  | "cloudLabels"
  | "podSecurity"
  | "instanceMetadata"
> & {
  networking: { cilium: Pick<ClusterSpec["networking"]["cilium"], "ipam"> };
  controlPlane: Pick<ClusterSpec["controlPlane"], "backupIntervalMinutes" | "etcdMemberUnhealthyMinutes">;
};

/**
 * Names of this cluster's control-plane state (ControlPlaneState) a control-plane node is told, and the admin
 * role its authenticator maps (mappedAdminRoleArn).
 */
export interface ControlPlaneStateNames {
  initRecord: string;
  restoreRequest: string;
  backupBucket: string;
  encryptionKeys: string;
  sharedPki: string;
  adminRoleArn: string;
}

export function bootstrapConfig(
  spec: NodeSpec,
  group: InstanceGroup,
  api: ApiEndpoints,
  state: ControlPlaneStateNames = {
    initRecord: "",
    restoreRequest: "",
    backupBucket: "",
    encryptionKeys: "",
    sharedPki: "",
    adminRoleArn: "",
  },
): BootstrapConfig {
  const controlPlane = group.role === "control-plane";
  const eni = eniMode(spec.networking.cilium);
  return {
    clusterName: spec.clusterName,
    instanceGroup: group.name,
    role: group.role,
    initZone: spec.network.availabilityZones[0],
    kubernetesVersion: spec.kubernetesVersion,
    apiEndpoint: api.internal,
    // Only the API servers' certificate needs them: workers stay untouched when the user-facing name changes.
    apiCertSans: controlPlane ? [...new Set([api.internal, api.public])] : [],
    apiPort: API_LISTENER,
    region: spec.region,
    clusterCaParameter: api.caParameter,
    sharedPkiParameters: controlPlane ? state.sharedPki : "",
    nodeCredentialsPrefix: instanceCredentialPrefix(spec.clusterName),
    nodeRoleName: controlPlane ? nodeRoleName(spec.clusterName) : "",
    secretsKey: controlPlane ? secretsKeyAlias(spec.clusterName) : "",
    nodeIpFromMetadata: eni,
    maxPodsFromEniLimits: eni,
    eniAddressesReservedByCilium: eni ? CILIUM_RESERVED_IPS : 0,
    hostNetworkPods: hostNetworkPods(spec.kubeProxy.enabled),
    launchHook: LAUNCH_HOOK_NAME,
    unmanagedSecondaryEnis: eni,
    podCIDR: spec.networking.cilium.ipam === "" ? spec.network.podCIDR : "",
    serviceCIDR: spec.network.serviceCIDR,
    kubeProxy: spec.kubeProxy.enabled,
    initRecord: controlPlane ? state.initRecord : "",
    restoreRequest: controlPlane ? state.restoreRequest : "",
    backupBucket: controlPlane ? state.backupBucket : "",
    backupIntervalMinutes: controlPlane ? spec.controlPlane.backupIntervalMinutes : 0,
    etcdMemberUnhealthyMinutes: controlPlane ? spec.controlPlane.etcdMemberUnhealthyMinutes : 0,
    encryptionKeys: controlPlane ? state.encryptionKeys : "",
    podSecurityEnforce: controlPlane ? spec.podSecurity.enforce : "",
    podSecurityWarn: controlPlane ? spec.podSecurity.warn : "",
    adminRoleArn: controlPlane ? state.adminRoleArn : "",
  };
}
