/**
 * Every config key of the `cilium-cluster` project: type, default, allowed values, description and the
 * validation rules in words. A feature's own keys come from its folder (its entry's `config`), through the
 * generated featureKeys.ts. Pulumi.yaml's `config:` block and docs/cluster-config.md
 * are generated from this module (`npm run generate`); the structural checks, the defaults and the rules
 * across keys held as data (`requires`) are driven by it.
 */
import { DEFAULT_KUBERNETES_VERSION } from "../catalogs/ciliumVersions";
import {
  API_LB_OWN_INBOUND_RULES,
  INBOUND_RULES_PER_SECURITY_GROUP,
  PROGRAM_TAGS_PER_RESOURCE,
  TAGS_PER_RESOURCE,
} from "./quotas";
import { FEATURE_KEYS } from "./featureKeys";
import type { AnyField } from "./schemaTypes";

/** The machine keys the control plane and every node group have. */
const rootVolumeSize = (gib: number) =>
  ({
    kind: "integer",
    default: gib,
    minimum: 20,
    maximum: 16384,
    description: "Size of the encrypted gp3 root volume in GiB.",
  }) as const;
const imageId = (whose: string) =>
  ({
    kind: "string",
    default: "",
    description: `AMI of ${whose}; empty for the latest Ubuntu 24.04 LTS from Canonical.`,
    rules: ["empty or an AMI id (`ami-` and 8 or 17 hex digits)"],
  }) as const;

/** The schema, whose literal types are the spec's (types.ts derives `ClusterSpec` from it). */
export const CONFIG_SCHEMA = {
  clusterName: {
    kind: "string",
    required: true,
    description:
      "Name of the cluster, a DNS name such as `dev.k8s.local`. It names and tags every resource, and Cilium's " +
      "`cluster-name` (which its ENI garbage collection keys on) is derived from it (stack output " +
      "`ciliumClusterName`), so it must be unique in the AWS account.",
    rules: ["a lowercase DNS name of at most 63 characters: labels of letters, digits and `-`, separated by dots"],
  },
  kubernetesVersion: {
    kind: "string",
    default: DEFAULT_KUBERNETES_VERSION,
    description:
      "Kubernetes release installed on every node (kubelet, kubeadm and the control plane). Changing it on a " +
      "deployed stack upgrades the cluster: the control plane one member at a time, then the node groups " +
      "(docs/operations.md, Upgrades).",
    rules: [
      "`X.Y.Z` without a `v`",
      "its minor must be supported by a shipped Cilium line (and the selected one)",
      "on a deployed stack: never lower than the version its last `pulumi up` applied, and at most the next minor, which etcd must allow (not 1.33 → 1.34)",
    ],
  },
  cloudProvider: {
    kind: "string",
    default: "aws",
    enum: ["aws"],
    description:
      "Cloud the cluster runs on, by kOps's name. This program builds on AWS only: kOps's other clouds " +
      "(`gce`, `azure`, `openstack`, `digitalocean`, `hetzner`, `scaleway`, `metal`) are refused.",
  },
  topology: {
    kind: "string",
    default: "private",
    enum: ["private", "public"],
    description:
      "`private`: nodes in private subnets that reach the internet through NAT gateways, with small utility " +
      "subnets for the NAT gateways and public load balancers. `public`: nodes in public subnets with public IPs.",
    rules: [
      "`public` cannot be combined with `networking.cilium.ipam: eni` (pods would have no route out without masquerade)",
    ],
  },
  network: {
    kind: "object",
    description: "The VPC and the address ranges of the cluster.",
    fields: {
      cidr: {
        kind: "string",
        default: "10.0.0.0/16",
        description: "IPv4 CIDR of the VPC; subnets are carved out of it per zone.",
        rules: [
          "a canonical IPv4 CIDR with a prefix between /16 and /24",
          "large enough for the subnet plan of the topology and zone count",
          "in ENI mode, each zone's private subnet must hold every pod and node the node groups can place there",
          "on a deployed stack, the CIDR its VPC has",
        ],
      },
      availabilityZones: {
        kind: "array",
        required: true,
        minItems: 1,
        maxItems: 6,
        items: { kind: "string", description: "An availability zone name, e.g. `us-east-1a`." },
        description: "Availability zones the cluster spans; nodes and control-plane groups are spread over them.",
        rules: [
          "one to six zones, unique, each in the stack's `aws:region` and ending in a letter `a` to `g`",
          "each zone owns the subnet slot of its letter, so adding, removing or reordering zones never moves another zone's subnets",
          "each zone must be recorded in the program's zone catalog (catalogs/availabilityZones.ts) or listed in `uncatalogedZones`",
        ],
      },
      uncatalogedZones: {
        kind: "array",
        default: [],
        maxItems: 6,
        items: { kind: "string", description: "An availability zone name, e.g. `eu-west-1d`." },
        description:
          "Zones the program's zone catalog does not record but your account has (see `aws ec2 describe-availability-zones " +
          "--region <region>`): a zone AWS opened after the catalog was written, or one of a region it has no zones of. " +
          "Listing a zone here says you checked that it exists; `availabilityZones` may then use it. Zone names map to " +
          "physical zones per account, so the catalog records only which names exist.",
        rules: ["each in the stack's `aws:region`", "not a zone the catalog already records"],
      },
      natGateways: {
        kind: "string",
        default: "perZone",
        enum: ["perZone", "single"],
        description:
          "`perZone`: one NAT gateway per zone, so a zone outage does not cut the others off. `single`: one NAT gateway " +
          "for all zones, cheaper but a single point of failure and cross-zone traffic charges. Used by the `private` topology.",
      },
      podCIDR: {
        kind: "string",
        default: "100.96.0.0/11",
        description:
          'Pod address range in the default (`""`) and `crd` IPAM modes; the controller manager hands each node a /24 of it. ' +
          "Unused in ENI mode, where pods take VPC addresses.",
        rules: [
          "a canonical IPv4 CIDR with a prefix of at most /24",
          "must not overlap the VPC (except in ENI mode) or the service range",
        ],
      },
      serviceCIDR: {
        kind: "string",
        default: "100.64.0.0/13",
        description: "Kubernetes service (ClusterIP) address range.",
        rules: ["a canonical IPv4 CIDR with a prefix between /12 and /24", "must not overlap the VPC or the pod range"],
      },
    },
  },
  networking: {
    kind: "object",
    description: "The cluster's CNI.",
    fields: {
      cilium: {
        kind: "object",
        description: "Cilium, the CNI of every cluster this program builds.",
        fields: {
          // Cilium's keys, from its folder (components/cilium/ciliumKeys.ts and each option's module), generated.
          ...FEATURE_KEYS["networking.cilium"],
        },
      },
    },
  },
  kubeProxy: {
    kind: "object",
    description: "kube-proxy on every node.",
    fields: {
      enabled: {
        kind: "boolean",
        default: true,
        description: "Run kube-proxy. Set to false when `networking.cilium.enableNodePort` is true.",
      },
    },
  },
  api: {
    kind: "object",
    description: "The Kubernetes API endpoint: a network load balancer in front of the control plane.",
    fields: {
      loadBalancer: {
        kind: "string",
        default: "public",
        enum: ["public", "internal"],
        description: "`public`: an internet-facing load balancer. `internal`: reachable only from inside the VPC.",
      },
      access: {
        kind: "array",
        default: [],
        items: { kind: "string", description: "An IPv4 CIDR." },
        description:
          "CIDRs allowed to reach the API on TCP 443, besides the cluster's own nodes. No one else by default: " +
          "a public load balancer (or `addons.applyFrom: deployer`) needs at least one, and the whole internet " +
          "is `0.0.0.0/0`, written out.",
        rules: [
          "canonical IPv4 CIDRs, unique",
          "required with `api.loadBalancer: public` or `addons.applyFrom: deployer`",
          `at most ${INBOUND_RULES_PER_SECURITY_GROUP - API_LB_OWN_INBOUND_RULES}: the load balancer's security group holds ` +
            `${INBOUND_RULES_PER_SECURITY_GROUP} inbound rules (AWS's default quota), ${API_LB_OWN_INBOUND_RULES} of them the program's own`,
        ],
      },
      admins: {
        kind: "array",
        default: [],
        items: { kind: "string", description: "An IAM role or user ARN." },
        description:
          "IAM roles or users that may assume the cluster's admin role (`admins.<clusterName>`), the only way to " +
          "cluster-admin from outside the control plane: `npm run kubeconfig` and `pulumi up`'s Kubernetes provider " +
          "assume it for 15-minute tokens, which aws-iam-authenticator on the control plane checks with STS. Empty: " +
          "any principal of the account whose IAM policies allow `sts:AssumeRole` on the role. The identity that " +
          "runs `pulumi up` (its `aws:profile`, not `aws:assumeRoles`) must be one of them. A change takes effect " +
          "for new sessions at once (the role's trust policy), with no node replaced.",
        rules: ["IAM role or user ARNs (`arn:<partition>:iam::<account>:role/<name>` or `:user/<name>`), unique"],
      },
    },
  },
  addons: {
    kind: "object",
    description:
      "The cluster's add-ons (Cilium, the AWS cloud controller manager, the EBS CSI driver) and how their " +
      "Kubernetes objects reach the cluster.",
    fields: {
      applyFrom: {
        kind: "string",
        default: "deployer",
        enum: ["deployer", "controlPlane"],
        description:
          "`deployer`: `pulumi up` applies the objects through the Kubernetes provider, so the machine running it " +
          "must reach the API (`api.loadBalancer`, `api.access`); previews list every object. `controlPlane`: the " +
          "control-plane nodes apply them with their own admin kubeconfig (an SSM State Manager association runs " +
          "`kubectl apply`, as kOps's channels tool does), so `pulumi up` needs only the AWS API.",
      },
      // The EBS CSI driver's keys, from its folder (components/ebsCsi/), generated.
      ...FEATURE_KEYS.addons,
    },
  },
  controlPlane: {
    kind: "object",
    description: "The control-plane instance groups (one per zone the control plane spans).",
    fields: {
      instanceType: {
        kind: "string",
        default: "t3.medium",
        description: "EC2 instance type of control-plane nodes.",
        rules: [
          "an EC2 instance type AWS offers, such as `t3.medium` or `m7i.large` (`@pulumi/aws`'s `ec2.InstanceType` list)",
          "at least 2 vCPUs and 1700 MB of memory, as EC2 describes the type (kubeadm's preflight for a control-plane node)",
          "not a type that runs only on Dedicated Hosts (EC2 Mac instances)",
        ],
      },
      count: {
        kind: "integer",
        default: 1,
        description:
          "Number of control-plane nodes, each in its own zone and Auto Scaling group: 1, or 3 for high availability.",
        rules: ["1 or 3", "3 needs at least 3 zones"],
      },
      rootVolumeSize: rootVolumeSize(64),
      imageId: imageId("control-plane nodes"),
      // The control plane's state's keys (its backups), from its folder (components/controlPlane/), generated.
      ...FEATURE_KEYS.controlPlane,
    },
  },
  nodeGroups: {
    kind: "array",
    minItems: 1,
    maxItems: 20,
    // One group named `nodes`; every other key of it comes from the item defaults below.
    default: [{ name: "nodes" }],
    description: "Worker instance groups, each an Auto Scaling group spread over the zones.",
    rules: ["one to twenty groups", "names unique"],
    items: {
      kind: "object",
      description: "A worker instance group.",
      fields: {
        name: {
          kind: "string",
          required: true,
          description: "Name of the group; names its launch template, Auto Scaling group and instances.",
          rules: ["a DNS label (lowercase letters, digits, `-`; at most 40 characters)", "unique among node groups"],
        },
        instanceType: {
          kind: "string",
          default: "t3.large",
          description: "EC2 instance type of the group's nodes.",
          rules: [
            "an EC2 instance type AWS offers (`@pulumi/aws`'s `ec2.InstanceType` list)",
            "not a type that runs only on Dedicated Hosts (EC2 Mac instances)",
            "in ENI mode, one whose ENIs hold more pods than the cluster's own on each node, so workloads get addresses",
          ],
        },
        minSize: {
          kind: "integer",
          default: 2,
          minimum: 0,
          maximum: 1000,
          description: "Smallest number of nodes in the group.",
          rules: ["at most `maxSize`"],
        },
        maxSize: {
          kind: "integer",
          default: 4,
          minimum: 1,
          maximum: 1000,
          atLeast: "minSize",
          description: "Largest number of nodes in the group.",
        },
        rootVolumeSize: rootVolumeSize(128),
        imageId: imageId("the group's nodes"),
        minHealthyPercentage: {
          kind: "integer",
          default: 90,
          minimum: 0,
          maximum: 100,
          description:
            "Share of the group's nodes kept in service while an instance refresh rolls the group after a launch template change.",
        },
      },
    },
  },
  cloudLabels: {
    kind: "map",
    description: "Tags added to every taggable AWS resource (and to the ENIs Cilium creates in ENI mode).",
    rules: [
      `at most ${TAGS_PER_RESOURCE - PROGRAM_TAGS_PER_RESOURCE}: AWS allows ${TAGS_PER_RESOURCE} tags per resource and the ` +
        `program puts up to ${PROGRAM_TAGS_PER_RESOURCE} of its own on one`,
      "keys of 1 to 128 characters, values of at most 256, not starting with `aws:`",
      "keys and values hold only letters, digits, spaces and `_ . : / = + - @` (AWS's tag alphabet)",
      "must not set tags the program or Cilium sets or selects by (`KubernetesCluster`, `Name`, `kops.k8s.io/instancegroup`, `kubernetes.io/cluster/*`, `kubernetes.io/role/*`, `k8s.io/role/*`, `cilium-cluster/*`, `io.cilium/*`): cloud labels go on every subnet, so `cilium-cluster/node-subnet` would put the public subnets in ENI mode's subnet filter",
    ],
  },
  podSecurity: {
    kind: "object",
    description:
      "Pod Security Admission's cluster-wide defaults: the Pod Security Standards level a namespace gets " +
      "when it sets no `pod-security.kubernetes.io/*` label of its own. `kube-system`, where every add-on " +
      "runs, is exempt. A namespace that needs more sets its own label, e.g. " +
      "`kubectl label namespace <name> pod-security.kubernetes.io/enforce=privileged`.",
    fields: {
      enforce: {
        kind: "string",
        default: "baseline",
        enum: ["privileged", "baseline", "restricted"],
        description:
          "The level enforced: a pod that breaks it is refused. `baseline` refuses privileged pods, host " +
          "namespaces, host paths and added capabilities.",
      },
      warn: {
        kind: "string",
        default: "restricted",
        enum: ["privileged", "baseline", "restricted"],
        description:
          "The level warned about (to the client that creates the pod) and recorded in the audit log, without refusing anything.",
      },
    },
  },
  instanceMetadata: {
    kind: "object",
    description: "The EC2 instance metadata service (IMDSv2 is always required).",
    fields: {
      hopLimit: {
        kind: "integer",
        default: 1,
        minimum: 1,
        maximum: 64,
        description:
          "IMDSv2 PUT response hop limit of the worker groups. 1 lets only host-network processes (kubelet, Cilium agent) " +
          "reach the metadata service; pods in their own network namespace need 2 or more. Control-plane nodes always " +
          "use 1, so no pod there can take the control-plane role.",
      },
    },
  },
  iam: {
    kind: "object",
    description: "IAM settings of the instance roles.",
    fields: {
      permissionsBoundary: {
        kind: "string",
        default: "",
        description:
          "ARN of a managed policy set as permissions boundary on every role the program creates; empty for none.",
        rules: ["empty or an IAM policy ARN (`arn:<partition>:iam::<account>:policy/<name>`)"],
      },
      path: {
        kind: "string",
        default: "/",
        description: "IAM path of the roles, their policies and instance profiles.",
        rules: [
          "`/`, or `/` + segments + `/`, at most 512 characters",
          "on a deployed stack, the path its roles are at",
        ],
      },
    },
  },
} as const satisfies Record<string, AnyField>;

/** The schema as a plain tree, for code that walks every key. */
export const CONFIG_TREE: Record<string, AnyField> = CONFIG_SCHEMA;
