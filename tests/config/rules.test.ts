// Every validation rule with a config that passes and one that fails, compared as `type::field`.
import { expect } from "chai";
import { errorKey } from "../../config/validation/fieldErrors";
import { formatWithFix } from "../../config/validation/report";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, merge, Raw, REGION } from "../fixtures";

interface RuleCase {
  rule: string;
  ok: Raw;
  bad: Raw;
  expected: string[];
}

const nonEni = { networking: { cilium: { ipam: "", disableMasquerade: false } } };
const zones = (...z: string[]) => ({ network: { availabilityZones: z } });
const group = (g: Raw) => ({ nodeGroups: [{ name: "nodes", instanceType: "t3.large", minSize: 2, maxSize: 4, ...g }] });

/** `n` distinct canonical CIDRs, and `n` distinct cloud labels. */
const cidrs = (n: number) => Array.from({ length: n }, (_, i) => `10.${i}.0.0/16`);
const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`label-${i}`, "x"]));

const cases: RuleCase[] = [
  {
    rule: "a public API admits no one unless api.access says who (0.0.0.0/0 written out)",
    ok: { api: { access: ["0.0.0.0/0"] } },
    bad: { api: { access: [] } },
    expected: ["Required value::api.access"],
  },
  {
    rule: "an internal API needs api.access when the deploying machine applies the add-ons",
    ok: { api: { loadBalancer: "internal", access: [] }, addons: { applyFrom: "controlPlane" } },
    bad: { api: { loadBalancer: "internal", access: [] } },
    expected: ["Required value::api.access"],
  },
  {
    rule: "api.access fits the API load balancer's security group (60 inbound rules, 3 the program's)",
    ok: { api: { access: cidrs(57) } },
    bad: { api: { access: cidrs(58) } },
    expected: ["Too many::api.access"],
  },
  {
    rule: "cloud labels fit AWS's 50 tags per resource beside the program's own 6",
    ok: { cloudLabels: labels(44) },
    bad: { cloudLabels: labels(45) },
    expected: ["Too many::cloudLabels"],
  },
  {
    rule: "ipam value",
    ok: { networking: { cilium: { ipam: "crd", disableMasquerade: false } } },
    bad: { networking: { cilium: { ipam: "ENI", disableMasquerade: false } } },
    expected: ["Unsupported value::networking.cilium.ipam"],
  },
  {
    rule: "eni needs masquerade disabled",
    ok: {},
    bad: { networking: { cilium: { disableMasquerade: false } } },
    expected: ["Forbidden::networking.cilium.disableMasquerade"],
  },
  {
    rule: "masquerade may be disabled only in ENI mode: the VPC routes no other pod addresses",
    ok: nonEni,
    bad: merge(nonEni, { networking: { cilium: { disableMasquerade: true } } }),
    expected: ["Forbidden::networking.cilium.disableMasquerade"],
  },
  {
    rule: "the cloud is AWS",
    ok: { cloudProvider: "aws" },
    bad: { cloudProvider: "azure" },
    expected: ["Unsupported value::cloudProvider"],
  },
  {
    rule: "eni needs native routing",
    ok: { networking: { cilium: { tunnel: "disabled" } } },
    bad: { networking: { cilium: { tunnel: "vxlan" } } },
    expected: ["Forbidden::networking.cilium.tunnel"],
  },
  {
    rule: "eni needs the private topology",
    ok: { topology: "private" },
    bad: { topology: "public" },
    expected: ["Forbidden::topology"],
  },
  {
    rule: "tunnel value",
    ok: merge(nonEni, { networking: { cilium: { tunnel: "geneve" } } }),
    bad: merge(nonEni, { networking: { cilium: { tunnel: "gre" } } }),
    expected: ["Unsupported value::networking.cilium.tunnel"],
  },
  {
    rule: "NodePort needs kube-proxy off",
    ok: { networking: { cilium: { enableNodePort: true } }, kubeProxy: { enabled: false } },
    bad: { networking: { cilium: { enableNodePort: true } } },
    expected: ["Forbidden::kubeProxy.enabled"],
  },
  {
    rule: "kube-proxy off needs Cilium's replacement",
    ok: { networking: { cilium: { enableNodePort: true } }, kubeProxy: { enabled: false } },
    bad: { kubeProxy: { enabled: false } },
    expected: ["Forbidden::networking.cilium.enableNodePort"],
  },
  {
    rule: "BPF masquerade needs NodePort",
    ok: merge(nonEni, {
      networking: { cilium: { bpfMasquerade: true, enableNodePort: true } },
      kubeProxy: { enabled: false },
    }),
    bad: merge(nonEni, { networking: { cilium: { bpfMasquerade: true } } }),
    expected: ["Forbidden::networking.cilium.bpfMasquerade"],
  },
  {
    rule: "BPF masquerade needs masquerading",
    ok: merge(nonEni, {
      networking: { cilium: { bpfMasquerade: true, enableNodePort: true } },
      kubeProxy: { enabled: false },
    }),
    bad: { networking: { cilium: { bpfMasquerade: true, enableNodePort: true } }, kubeProxy: { enabled: false } },
    expected: ["Forbidden::networking.cilium.bpfMasquerade"],
  },
  {
    rule: "Hubble Relay needs Hubble",
    ok: { networking: { cilium: { hubble: { enabled: true, relay: true } } } },
    bad: { networking: { cilium: { hubble: { relay: true } } } },
    expected: ["Forbidden::networking.cilium.hubble.relay"],
  },
  {
    rule: "native routing needs ENI",
    ok: { networking: { cilium: { tunnel: "disabled" } } },
    bad: merge(nonEni, { networking: { cilium: { tunnel: "disabled" } } }),
    expected: ["Forbidden::networking.cilium.tunnel"],
  },
  {
    rule: "Cilium version has a v",
    ok: { kubernetesVersion: "1.33.5", networking: { cilium: { version: "v1.18.14" } } },
    bad: { kubernetesVersion: "1.33.5", networking: { cilium: { version: "1.18.14" } } },
    expected: ["Invalid value::networking.cilium.version"],
  },
  {
    rule: "Cilium version is semver",
    ok: { networking: { cilium: { version: "v1.20.1" } } },
    bad: { networking: { cilium: { version: "v1.20" } } },
    expected: ["Invalid value::networking.cilium.version"],
  },
  {
    rule: "Cilium line is shipped",
    ok: { networking: { cilium: { version: "v1.20.0" } } },
    bad: { networking: { cilium: { version: "v1.17.6" } } },
    expected: ["Invalid value::networking.cilium.version"],
  },
  {
    rule: "Cilium release is known to exist",
    ok: { networking: { cilium: { version: "v1.20.2" } } },
    bad: { networking: { cilium: { version: "v1.20.3" } } },
    expected: ["Invalid value::networking.cilium.version"],
  },
  {
    rule: "Cilium version is a release, not a pre-release",
    ok: { networking: { cilium: { version: "v1.20.0" } } },
    bad: { networking: { cilium: { version: "v1.20.0-rc.1" } } },
    expected: ["Invalid value::networking.cilium.version"],
  },
  {
    rule: "Cilium line supports the Kubernetes version",
    ok: { kubernetesVersion: "1.35.2", networking: { cilium: { version: "v1.19.8" } } },
    bad: { kubernetesVersion: "1.36.0", networking: { cilium: { version: "v1.19.8" } } },
    expected: ["Invalid value::networking.cilium.version"],
  },
  {
    rule: "Cilium 1.19 starts at Kubernetes 1.32 (compatibility.rst at v1.19.3)",
    ok: { kubernetesVersion: "1.32.0", networking: { cilium: { version: "v1.19.8" } } },
    bad: { kubernetesVersion: "1.31.9", networking: { cilium: { version: "v1.19.8" } } },
    expected: ["Invalid value::networking.cilium.version"],
  },
  {
    rule: "Cilium 1.18 stops at Kubernetes 1.33",
    ok: { kubernetesVersion: "1.33.0", networking: { cilium: { version: "v1.18.14" } } },
    bad: { kubernetesVersion: "1.34.0", networking: { cilium: { version: "v1.18.14" } } },
    expected: ["Invalid value::networking.cilium.version"],
  },
  {
    rule: "a Kubernetes version no Cilium line supports is reported on kubernetesVersion",
    ok: { kubernetesVersion: "1.36.0" },
    bad: { kubernetesVersion: "1.37.0" },
    expected: ["Invalid value::kubernetesVersion"],
  },
  {
    rule: "... also when the Cilium version is set",
    ok: { kubernetesVersion: "1.30.4", networking: { cilium: { version: "v1.18.14" } } },
    bad: { kubernetesVersion: "1.29.0", networking: { cilium: { version: "v1.18.14" } } },
    expected: ["Invalid value::kubernetesVersion"],
  },
  {
    rule: "extraConfig keys are options the Cilium line reads",
    ok: { networking: { cilium: { extraConfig: { "bpf-lb-algorithm": "maglev", "policy-audit-mode": "true" } } } },
    bad: { networking: { cilium: { extraConfig: { "Bad Key": "x", "policy-audit-mdoe": "true" } } } },
    expected: [
      'Forbidden::networking.cilium.extraConfig["Bad Key"]',
      "Forbidden::networking.cilium.extraConfig.policy-audit-mdoe",
    ],
  },
  {
    rule: "extraConfig keys are read per Cilium line (bpf-lb-proto-diff is gone in 1.19)",
    ok: {
      kubernetesVersion: "1.33.5",
      networking: { cilium: { version: "v1.18.14", extraConfig: { "bpf-lb-proto-diff": "true" } } },
    },
    bad: {
      kubernetesVersion: "1.33.5",
      networking: { cilium: { version: "v1.19.8", extraConfig: { "bpf-lb-proto-diff": "true" } } },
    },
    expected: ["Forbidden::networking.cilium.extraConfig.bpf-lb-proto-diff"],
  },
  {
    rule: "kubernetesVersion is a recorded release",
    ok: { kubernetesVersion: "1.35.4" },
    bad: { kubernetesVersion: "1.35.99" },
    expected: ["Invalid value::kubernetesVersion"],
  },
  {
    rule: "extraConfig values are strings",
    ok: { networking: { cilium: { extraConfig: { debug: "true" } } } },
    bad: { networking: { cilium: { extraConfig: { debug: true } } } },
    expected: ["Invalid value::networking.cilium.extraConfig.debug"],
  },
  {
    rule: "kubernetesVersion format",
    ok: { kubernetesVersion: "1.33.5" },
    bad: { kubernetesVersion: "v1.33.5" },
    expected: ["Invalid value::kubernetesVersion"],
  },
  {
    rule: "clusterName is required",
    ok: { clusterName: "a.b" },
    bad: { clusterName: undefined },
    expected: ["Required value::clusterName"],
  },
  {
    rule: "clusterName is a DNS name",
    ok: { clusterName: "prod-1.example.com" },
    bad: { clusterName: "Prod_1" },
    expected: ["Invalid value::clusterName"],
  },
  {
    rule: "clusterName length",
    ok: { clusterName: "a".repeat(63) },
    bad: { clusterName: "a".repeat(64) },
    expected: ["Invalid value::clusterName"],
  },
  {
    rule: "VPC CIDR format",
    ok: { network: { cidr: "172.20.0.0/16" } },
    bad: { network: { cidr: "10.0.0/16" } },
    expected: ["Invalid value::network.cidr"],
  },
  {
    rule: "VPC CIDR canonical",
    ok: { network: { cidr: "10.1.0.0/16" } },
    bad: { network: { cidr: "10.1.0.1/16" } },
    expected: ["Invalid value::network.cidr"],
  },
  {
    rule: "VPC CIDR prefix range",
    ok: merge(nonEni, { network: { cidr: "10.1.0.0/20" } }),
    bad: { network: { cidr: "10.0.0.0/8" } },
    expected: ["Invalid value::network.cidr"],
  },
  {
    rule: "VPC large enough for the private plan",
    ok: merge(nonEni, { network: { cidr: "10.0.0.0/22" } }),
    bad: merge(nonEni, { network: { cidr: "10.0.0.0/23" } }),
    expected: ["Invalid value::network.cidr"],
  },
  {
    rule: "ENI subnets hold every pod",
    ok: { nodeGroups: [{ name: "nodes", instanceType: "m5.4xlarge", maxSize: 30 }] },
    bad: merge(
      { network: { cidr: "10.0.0.0/20" } },
      { nodeGroups: [{ name: "nodes", instanceType: "m5.4xlarge", maxSize: 30 }] },
    ),
    expected: ["Invalid value::network.cidr"],
  },
  {
    // Per zone of a /23 (507 addresses): 4 m5.4xlarge at 123 (110 pods capped: 108 + 2 reserved + 8
    // pre-allocated on 5 ENIs) + a t3.medium control-plane node at 18 = 510. Without the watermark: 474.
    rule: "ENI subnets hold Cilium's pre-allocate watermark too",
    ok: merge(
      { network: { cidr: "10.0.0.0/20" } },
      { nodeGroups: [{ name: "nodes", instanceType: "m5.4xlarge", maxSize: 9 }] },
    ),
    bad: merge(
      { network: { cidr: "10.0.0.0/20" } },
      { nodeGroups: [{ name: "nodes", instanceType: "m5.4xlarge", maxSize: 12 }] },
    ),
    expected: ["Invalid value::network.cidr"],
  },
  {
    rule: "pods outside the VPC (non-ENI)",
    ok: merge(nonEni, { network: { podCIDR: "100.96.0.0/11" } }),
    bad: merge(nonEni, { network: { podCIDR: "10.0.128.0/17" } }),
    expected: ["Forbidden::network.podCIDR"],
  },
  {
    rule: "pods may overlap the VPC in ENI mode",
    ok: { network: { podCIDR: "10.0.0.0/16" } },
    bad: { network: { podCIDR: "10.0.0.0/33" } },
    expected: ["Invalid value::network.podCIDR"],
  },
  {
    rule: "services outside the VPC",
    ok: { network: { serviceCIDR: "172.30.0.0/16" } },
    bad: { network: { serviceCIDR: "10.0.0.0/16" } },
    expected: ["Forbidden::network.serviceCIDR"],
  },
  {
    rule: "services outside the pod range",
    ok: { network: { serviceCIDR: "100.64.0.0/13" } },
    bad: merge(nonEni, { network: { serviceCIDR: "100.96.0.0/16" } }),
    expected: ["Forbidden::network.serviceCIDR"],
  },
  {
    rule: "zones unique",
    ok: zones("us-east-1a", "us-east-1b"),
    bad: zones("us-east-1a", "us-east-1a"),
    expected: ["Invalid value::network.availabilityZones[1]"],
  },
  {
    rule: "zones in the region",
    ok: zones("us-east-1d"),
    bad: zones("eu-west-1a"),
    expected: ["Invalid value::network.availabilityZones[0]"],
  },
  {
    rule: "at least one zone",
    ok: zones("us-east-1a"),
    bad: zones(),
    expected: ["Invalid value::network.availabilityZones"],
  },
  {
    rule: "zones are required",
    ok: {},
    bad: { network: { cidr: "10.0.0.0/16", availabilityZones: undefined } },
    expected: ["Required value::network.availabilityZones"],
  },
  {
    rule: "NAT mode",
    ok: { network: { natGateways: "single" } },
    bad: { network: { natGateways: "none" } },
    expected: ["Unsupported value::network.natGateways"],
  },
  {
    rule: "API access CIDRs",
    ok: { api: { access: ["203.0.113.0/24"] } },
    bad: { api: { access: ["203.0.113.0/24", "myhost"] } },
    expected: ["Invalid value::api.access[1]"],
  },
  {
    rule: "API access unique",
    ok: { api: { access: ["203.0.113.0/24", "198.51.100.7/32"] } },
    bad: { api: { access: ["203.0.113.0/24", "203.0.113.0/24"] } },
    expected: ["Invalid value::api.access[1]"],
  },
  {
    rule: "API load balancer scheme",
    ok: { api: { loadBalancer: "internal" } },
    bad: { api: { loadBalancer: "private" } },
    expected: ["Unsupported value::api.loadBalancer"],
  },
  {
    rule: "control-plane count 1 or 3",
    ok: { controlPlane: { count: 3 } },
    bad: { controlPlane: { count: 2 } },
    expected: ["Unsupported value::controlPlane.count"],
  },
  {
    rule: "3 control-plane nodes need 3 zones",
    ok: merge(zones("us-east-1a", "us-east-1b", "us-east-1c"), { controlPlane: { count: 3 } }),
    bad: merge(zones("us-east-1a", "us-east-1b"), { controlPlane: { count: 3 } }),
    expected: ["Invalid value::controlPlane.count"],
  },
  {
    rule: "control-plane instance type",
    ok: { controlPlane: { instanceType: "m7i-flex.large" } },
    bad: { controlPlane: { instanceType: "t3medium" } },
    expected: ["Invalid value::controlPlane.instanceType"],
  },
  {
    rule: "control-plane AMI id",
    ok: { controlPlane: { imageId: "ami-0123456789abcdef0" } },
    bad: { controlPlane: { imageId: "ubuntu" } },
    expected: ["Invalid value::controlPlane.imageId"],
  },
  {
    rule: "root volume range",
    ok: { controlPlane: { rootVolumeSize: 20 } },
    bad: { controlPlane: { rootVolumeSize: 8 } },
    expected: ["Invalid value::controlPlane.rootVolumeSize"],
  },
  {
    rule: "node group names are DNS labels",
    ok: group({ name: "gpu-a" }),
    bad: group({ name: "GPU_a" }),
    expected: ["Invalid value::nodeGroups[0].name"],
  },
  {
    rule: "node group names unique",
    ok: { nodeGroups: [{ name: "a" }, { name: "b" }] },
    bad: { nodeGroups: [{ name: "a" }, { name: "a" }] },
    expected: ["Invalid value::nodeGroups[1].name"],
  },
  {
    rule: "node group name required",
    ok: { nodeGroups: [{ name: "a" }] },
    bad: { nodeGroups: [{ instanceType: "t3.large" }] },
    expected: ["Required value::nodeGroups[0].name"],
  },
  {
    rule: "minSize <= maxSize",
    ok: group({ minSize: 4, maxSize: 4 }),
    bad: group({ minSize: 5, maxSize: 4 }),
    expected: ["Invalid value::nodeGroups[0].minSize"],
  },
  {
    rule: "node group instance type",
    ok: group({ instanceType: "c7gn.16xlarge" }),
    bad: group({ instanceType: "large" }),
    expected: ["Invalid value::nodeGroups[0].instanceType"],
  },
  {
    rule: "cloud labels must not override program tags",
    ok: { cloudLabels: { team: "x" } },
    bad: { cloudLabels: { KubernetesCluster: "x" } },
    expected: ["Forbidden::cloudLabels.KubernetesCluster"],
  },
  {
    rule: "cloud labels must not use kubernetes.io/cluster/",
    ok: { cloudLabels: { "example.com/owner": "x" } },
    bad: { cloudLabels: { "kubernetes.io/cluster/other": "owned" } },
    expected: ['Forbidden::cloudLabels["kubernetes.io/cluster/other"]'],
  },
  {
    rule: "cloud labels must not use cilium-cluster/ (the ENI subnet filter's tag)",
    ok: { cloudLabels: { "cilium-cluster-owner": "x" } },
    bad: { cloudLabels: { "cilium-cluster/node-subnet": "1" } },
    expected: ['Forbidden::cloudLabels["cilium-cluster/node-subnet"]'],
  },
  {
    rule: "cloud labels must not use io.cilium/ (Cilium's ENI tags)",
    ok: { cloudLabels: { "io.cilium": "x" } },
    bad: { cloudLabels: { "io.cilium/cluster-name": "other" } },
    expected: ['Forbidden::cloudLabels["io.cilium/cluster-name"]'],
  },
  {
    rule: "cloud labels must not fake a group's role or name (workers would pass for etcd peers)",
    ok: { cloudLabels: { "k8s.io/owner": "x" } },
    bad: { cloudLabels: { "k8s.io/role/control-plane": "1", "kops.k8s.io/instancegroup": "nodes" } },
    expected: [
      'Forbidden::cloudLabels["k8s.io/role/control-plane"]',
      'Forbidden::cloudLabels["kops.k8s.io/instancegroup"]',
    ],
  },
  {
    rule: "cloud labels must not start with aws:",
    ok: { cloudLabels: { awsome: "x" } },
    bad: { cloudLabels: { "aws:foo": "x" } },
    expected: ['Invalid value::cloudLabels["aws:foo"]'],
  },
  {
    rule: "permissions boundary ARN",
    ok: { iam: { permissionsBoundary: "arn:aws:iam::123456789012:policy/boundary" } },
    bad: { iam: { permissionsBoundary: "boundary" } },
    expected: ["Invalid value::iam.permissionsBoundary"],
  },
  {
    rule: "restore principals are IAM role or user ARNs, unique",
    ok: {
      controlPlane: {
        backupRestorePrincipals: ["arn:aws:iam::123456789012:role/etcd-restore", "arn:aws:iam::123456789012:user/ops"],
      },
    },
    bad: {
      controlPlane: {
        backupRestorePrincipals: [
          "arn:aws:iam::123456789012:policy/boundary",
          "arn:aws:iam::123456789012:role/r",
          "arn:aws:iam::123456789012:role/r",
        ],
      },
    },
    expected: [
      "Invalid value::controlPlane.backupRestorePrincipals[0]",
      "Invalid value::controlPlane.backupRestorePrincipals[2]",
    ],
  },
  {
    rule: "one control-plane node needs its loss accepted",
    ok: { controlPlane: { count: 3 }, network: { availabilityZones: ["us-east-1a", "us-east-1b", "us-east-1c"] } },
    bad: { controlPlane: { count: 1, acceptSingleNodeLoss: false } },
    expected: ["Required value::controlPlane.acceptSingleNodeLoss"],
  },
  {
    rule: "IAM path",
    ok: { iam: { path: "/k8s/" } },
    bad: { iam: { path: "k8s" } },
    expected: ["Invalid value::iam.path"],
  },
  {
    rule: "wrong type: boolean",
    ok: { kubeProxy: { enabled: true } },
    bad: { kubeProxy: { enabled: "no" } },
    expected: ["Invalid value::kubeProxy.enabled"],
  },
  {
    rule: "wrong type: integer",
    ok: { controlPlane: { count: 1 } },
    bad: { controlPlane: { count: 1.5 } },
    expected: ["Invalid value::controlPlane.count"],
  },
  { rule: "wrong type: object", ok: { api: {} }, bad: { api: "public" }, expected: ["Invalid value::api"] },
  {
    rule: "wrong type: list",
    ok: { api: { access: ["0.0.0.0/0"] } },
    bad: { api: { access: "0.0.0.0/0" } },
    expected: ["Invalid value::api.access"],
  },
  {
    rule: "unknown nested key",
    ok: {},
    bad: { networking: { cilium: { ipma: "eni" } } },
    expected: ["Forbidden::networking.cilium.ipma"],
  },
  { rule: "unknown top-level key", ok: {}, bad: { nodeGroup: [] }, expected: ["Forbidden::nodeGroup"] },
  {
    rule: "instance types come from AWS's catalog, not just their shape",
    ok: { controlPlane: { instanceType: "m8g.large" } },
    bad: { controlPlane: { instanceType: "t3.mega" }, nodeGroups: [{ name: "nodes", instanceType: "m5.larg" }] },
    expected: ["Invalid value::controlPlane.instanceType", "Invalid value::nodeGroups[0].instanceType"],
  },
  {
    rule: "zones end in a letter a to g (each owns the subnet slot of its letter)",
    ok: { network: { availabilityZones: ["us-east-1a", "us-east-1g"], uncatalogedZones: ["us-east-1g"] } },
    bad: { network: { availabilityZones: ["us-east-1a", "us-east-1h"], uncatalogedZones: ["us-east-1h"] } },
    expected: ["Invalid value::network.availabilityZones[1]"],
  },
  {
    rule: "zones are recorded for the region, or listed in uncatalogedZones",
    ok: zones("us-east-1a", "us-east-1f"),
    bad: zones("us-east-1a", "us-east-1g"),
    expected: ["Invalid value::network.availabilityZones[1]"],
  },
  {
    rule: "uncatalogedZones lists only zones the catalog does not record, in the region",
    ok: { network: { uncatalogedZones: ["us-east-1g"] } },
    bad: { network: { uncatalogedZones: ["us-east-1b", "eu-west-1d"] } },
    expected: ["Invalid value::network.uncatalogedZones[0]", "Invalid value::network.uncatalogedZones[1]"],
  },
  {
    rule: "extraConfig must not override an option the program manages",
    ok: { networking: { cilium: { extraConfig: { "bpf-lb-algorithm": "maglev", debug: "true" } } } },
    bad: { networking: { cilium: { extraConfig: { ipam: "kubernetes", "routing-mode": "tunnel" } } } },
    expected: [
      "Forbidden::networking.cilium.extraConfig.ipam",
      "Forbidden::networking.cilium.extraConfig.routing-mode",
    ],
  },
];

describe("validation rules, each both ways", () => {
  for (const c of cases) {
    it(c.rule, () => {
      const run = (edit: Raw) => validateConfig(merge(baseConfig(), edit), REGION).errors.map(errorKey).sort();
      expect(run(c.ok), "the passing config").to.deep.equal([]);
      expect(run(c.bad), "the failing config").to.deep.equal([...c.expected].sort());
    });
  }

  it("names the limit and the fix of each quota, and a runnable address for an empty api.access", () => {
    const report = (edit: Raw) => validateConfig(merge(baseConfig(), edit), REGION).errors.map(formatWithFix);
    expect(report({ api: { access: cidrs(59) } })).to.deep.equal([
      "api.access: Too many: 59: must have at most 57 items: the API load balancer's security group holds 60 inbound " +
        "rules (AWS's default quota), 3 of them the program's own; merge CIDRs or remove some " +
        "(fix: pulumi config rm --path 'api.access[58]' && pulumi config rm --path 'api.access[57]')",
    ]);
    expect(report({ cloudLabels: labels(45) })).to.deep.equal([
      "cloudLabels: Too many: 45: must have at most 44 items: AWS allows 50 tags per resource and the program puts " +
        "up to 6 of its own on one (fix: pulumi config rm --path 'cloudLabels.label-44')",
    ]);
    expect(report({ api: { access: [] } })).to.deep.equal([
      "api.access: Required value: the public API load balancer admits no one by default: add your own address " +
        "(0.0.0.0/0 admits the whole internet and must be written out) " +
        "(fix: pulumi config set --path 'api.access[0]' '203.0.113.7/32')",
    ]);
  });

  it("requires aws:region and checks its form", () => {
    expect(validateConfig(baseConfig(), undefined).errors.map(errorKey)).to.deep.equal(["Required value::aws:region"]);
    expect(validateConfig(baseConfig(), "useast1").errors.map(errorKey)).to.include("Invalid value::aws:region");
  });

  it("refuses each of kOps's other clouds at its config path, with the fix that sets aws", () => {
    for (const cloud of ["gce", "azure", "openstack", "digitalocean", "hetzner", "scaleway", "metal"]) {
      const { errors } = validateConfig(merge(baseConfig(), { cloudProvider: cloud }), REGION);
      expect(errors.map(formatWithFix), cloud).to.deep.equal([
        `cloudProvider: Unsupported value: "${cloud}": supported values: "aws" ` +
          "(fix: pulumi config set --path 'cloudProvider' 'aws')",
      ]);
    }
  });

  it("suggests the closest known key for a typo", () => {
    const { errors } = validateConfig(merge(baseConfig(), { networking: { cilium: { ipma: "eni" } } }), REGION);
    expect(errors[0].detail).to.match(/^unknown key; did you mean "networking\.cilium\.ipam"\?/);
  });

  it("reports every problem at once", () => {
    const bad = merge(baseConfig(), {
      clusterName: "Bad Name",
      networking: { cilium: { ipam: "eni", disableMasquerade: false, ipma: "x" } },
      controlPlane: { count: 2 },
      nodeGroups: [{ name: "a", minSize: 3, maxSize: 1 }],
    });
    expect(validateConfig(bad, REGION).errors.map(errorKey).sort()).to.deep.equal(
      [
        "Invalid value::clusterName",
        "Forbidden::networking.cilium.disableMasquerade",
        "Forbidden::networking.cilium.ipma",
        "Unsupported value::controlPlane.count",
        "Invalid value::nodeGroups[0].minSize",
      ].sort(),
    );
  });

  it("checks every item of a list, holes and nulls included (found by the fuzzer)", () => {
    // eslint-disable-next-line no-sparse-arrays
    const nodeGroups = [{ name: "a" }, , null];
    const { errors } = validateConfig(merge(baseConfig(), { nodeGroups }), REGION);
    expect(errors.map(errorKey)).to.deep.equal([
      "Required value::nodeGroups[1].name",
      "Required value::nodeGroups[2].name",
    ]);
  });

  it("does not report rules about a value it already rejected for its type", () => {
    const { errors } = validateConfig(
      merge(baseConfig(), { networking: { cilium: { disableMasquerade: "yes" } } }),
      REGION,
    );
    expect(errors.map(errorKey)).to.deep.equal(["Invalid value::networking.cilium.disableMasquerade"]);
  });
});
