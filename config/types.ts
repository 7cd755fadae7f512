/**
 * The cluster spec: the typed, defaulted form of the stack config. Components take (parts of) it as
 * arguments and never read config themselves. Field descriptions for users live in `schema.ts`, which
 * the compiler keeps in step with these types.
 */

/** Cilium IPAM modes: `""` is the default mode (host-scope, Cilium's `kubernetes` IPAM). */
export type CiliumIpam = "" | "crd" | "eni";
export type CiliumTunnel = "vxlan" | "geneve" | "disabled";
export type Topology = "private" | "public";
export type NatGateways = "perZone" | "single";
export type ApiLoadBalancer = "public" | "internal";
/** The cloud, by kOps's name: this program builds on AWS only. */
export type CloudProvider = "aws";

export interface CiliumSpec {
  /** Cilium release, `v`-prefixed semver of a shipped line. */
  version: string;
  /** IP address management mode. */
  ipam: CiliumIpam;
  /** Turns off masquerading of pod traffic behind the node IP. */
  disableMasquerade: boolean;
  /** Encapsulation between nodes, or `disabled` for native routing. */
  tunnel: CiliumTunnel;
  /** Cilium replaces kube-proxy (eBPF NodePort and service handling). */
  enableNodePort: boolean;
  /** Extra `cilium-config` keys, applied last so they override rendered ones. */
  extraConfig: Record<string, string>;
}

export interface NetworkSpec {
  /** The VPC's IPv4 CIDR. */
  cidr: string;
  /** Zones the cluster spans, all in the stack's region. */
  availabilityZones: string[];
  /** One NAT gateway per zone, or a single shared one. */
  natGateways: NatGateways;
  /** Pod address range for the non-ENI IPAM modes. */
  podCIDR: string;
  /** Kubernetes service address range. */
  serviceCIDR: string;
}

/**
 * Who applies the add-ons' Kubernetes objects: `deployer`, the machine running `pulumi up` through the
 * Kubernetes provider (it must reach the API); `controlPlane`, the control-plane nodes themselves.
 */
export type AddonsApplyFrom = "deployer" | "controlPlane";

export interface AddonsSpec {
  applyFrom: AddonsApplyFrom;
}

export interface ApiSpec {
  /** Scheme of the API network load balancer. */
  loadBalancer: ApiLoadBalancer;
  /** CIDRs allowed to reach the API on TCP 443. */
  access: string[];
}

export interface ControlPlaneSpec {
  /** EC2 instance type of control-plane nodes. */
  instanceType: string;
  /** Number of control-plane nodes (1 or 3). */
  count: number;
  /** Root volume size in GiB. */
  rootVolumeSize: number;
  /** AMI override; the latest Ubuntu 24.04 LTS when empty. */
  imageId: string;
  /** Minutes between etcd snapshots uploaded to the backup bucket. */
  backupIntervalMinutes: number;
  /** Days the backup bucket keeps a snapshot named by time; the newest is kept whatever its age. */
  backupRetentionDays: number;
}

export interface NodeGroupSpec {
  /** Name of the group, a DNS label unique in the cluster. */
  name: string;
  /** EC2 instance type of the group's nodes. */
  instanceType: string;
  /** Smallest size of the group's Auto Scaling group. */
  minSize: number;
  /** Largest size of the group's Auto Scaling group. */
  maxSize: number;
  /** Root volume size in GiB. */
  rootVolumeSize: number;
  /** AMI override; the latest Ubuntu 24.04 LTS when empty. */
  imageId: string;
  /** Share of the group kept in service while an instance refresh replaces its nodes. */
  minHealthyPercentage: number;
}

export interface InstanceMetadataSpec {
  /** IMDSv2 PUT response hop limit; 1 keeps the metadata service from non-host-network pods. */
  hopLimit: number;
}

export interface IamSpec {
  /** ARN of a managed policy set as permissions boundary on every role; empty for none. */
  permissionsBoundary: string;
  /** IAM path of the roles and instance profiles. */
  path: string;
}

export interface ClusterSpec {
  /** Cluster name, a DNS name unique in the AWS account. */
  clusterName: string;
  /** The AWS region, from `aws:region`. */
  region: string;
  /** Kubernetes release (`X.Y.Z`). */
  kubernetesVersion: string;
  /** Cloud the cluster runs on. */
  cloudProvider: CloudProvider;
  /** Where nodes live: private subnets behind NAT, or public subnets. */
  topology: Topology;
  network: NetworkSpec;
  networking: { cilium: CiliumSpec };
  kubeProxy: { enabled: boolean };
  api: ApiSpec;
  addons: AddonsSpec;
  controlPlane: ControlPlaneSpec;
  nodeGroups: NodeGroupSpec[];
  /** Tags put on every taggable AWS resource. */
  cloudLabels: Record<string, string>;
  iam: IamSpec;
  instanceMetadata: InstanceMetadataSpec;
}
