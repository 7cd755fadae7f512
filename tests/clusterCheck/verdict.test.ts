// The cluster check's verdict (cli/clusterCheck/verdict.ts) as a table: the dev stack's healthy cluster, broken one
// thing at a time, and what each breakage is reported as (KIND and NAME of each failure). The same verdicts
// against a real API server: tests/kubernetes/validateCluster.ts.
import { expect } from "chai";
import { specWith } from "../fixtures";
import type { AwsGroups, ClusterState, ReachedCluster } from "../../cli/clusterCheck/clusterState";
import { expectations } from "../../cli/clusterCheck/expectations";
import { verdictText } from "../../cli/clusterCheck/tables";
import { judge } from "../../cli/clusterCheck/verdict";
import { ciliumNode, healthyCluster, healthyGroups, MACHINES } from "./clusterFixtures";

const ENI = expectations(specWith({}));
const [CP, W1, W2] = MACHINES;

interface Case {
  name: string;
  /** Breaks the healthy cluster (a copy) and, with AWS, its groups. */
  cluster?: (c: ReachedCluster) => ClusterState | void;
  aws?: (a: AwsGroups & { listed: true }) => AwsGroups | void;
  /** `KIND NAME` of every failure, in order. */
  failures: string[];
  spec?: ReturnType<typeof specWith>;
}

const nodeOf = (c: ReachedCluster, name: string) => c.nodes.find((n) => n.metadata?.name === name)!;
const notReady = (c: ReachedCluster, name: string) => {
  nodeOf(c, name).status!.conditions = [{ type: "Ready", status: "False", reason: "KubeletNotReady" }];
};
const groupOf = (a: AwsGroups & { listed: true }, name: string) =>
  a.groups.find((g) => g.Tags?.some((t) => t.Value === name))!;

const CASES: Case[] = [
  { name: "a healthy cluster", failures: [] },
  {
    name: "a NotReady worker: the node, and its group short of its minimum",
    cluster: (c) => notReady(c, W1.name),
    failures: ["InstanceGroup nodes", `Node ${W1.name}`],
  },
  {
    name: "a NotReady control-plane node",
    cluster: (c) => notReady(c, CP.name),
    failures: ["InstanceGroup control-plane-us-east-1a", `Node ${CP.name}`],
  },
  {
    name: "the Cilium operator missing",
    cluster: (c) => {
      c.deployments = c.deployments.filter((d) => d.metadata?.name !== "cilium-operator");
    },
    failures: ["Deployment kube-system/cilium-operator"],
  },
  {
    name: "Cilium's agents: one of three not ready",
    cluster: (c) => {
      c.daemonSets.find((d) => d.metadata?.name === "cilium")!.status!.numberReady = 2;
    },
    failures: ["DaemonSet kube-system/cilium"],
  },
  {
    name: "the cloud controller manager's DaemonSet not yet seen by its controller after a change",
    cluster: (c) => {
      c.daemonSets.find((d) => d.metadata?.name === "aws-cloud-controller-manager")!.metadata!.generation = 3;
    },
    failures: ["DaemonSet kube-system/aws-cloud-controller-manager"],
  },
  {
    name: "the EBS CSI controller with one replica ready",
    cluster: (c) => {
      c.deployments.find((d) => d.metadata?.name === "ebs-csi-controller")!.status!.readyReplicas = 1;
    },
    failures: ["Deployment kube-system/ebs-csi-controller"],
  },
  {
    name: "an ENI node out of pod addresses",
    cluster: (c) => {
      c.ciliumNodes = c.ciliumNodes!.map((n) => (n.metadata.name === W2.name ? ciliumNode(W2.name, 24, 24, 3) : n));
    },
    failures: [`CiliumNode ${W2.name}`],
  },
  {
    name: "an ENI node with no address allocated yet",
    cluster: (c) => {
      c.ciliumNodes = c.ciliumNodes!.map((n) => (n.metadata.name === W2.name ? ciliumNode(W2.name, 0, 0, 1) : n));
    },
    failures: [`CiliumNode ${W2.name}`],
  },
  {
    name: "a node without a CiliumNode",
    cluster: (c) => {
      c.ciliumNodes = c.ciliumNodes!.filter((n) => n.metadata.name !== W1.name);
    },
    failures: [`CiliumNode ${W1.name}`],
  },
  {
    name: "an error the Cilium operator reports on a CiliumNode",
    cluster: (c) => {
      c.ciliumNodes![1].status!.ipam!["operator-status"] = { error: "unable to create ENI: limit reached" };
    },
    failures: [`CiliumNode ${W1.name}`],
  },
  {
    name: "not in ENI mode: no CiliumNode is read or needed",
    spec: specWith({ networking: { cilium: { ipam: "", disableMasquerade: false } } }),
    cluster: (c) => {
      c.ciliumNodes = undefined;
    },
    failures: [],
  },
  {
    name: "etcd's static pod missing from the control-plane node",
    cluster: (c) => {
      c.pods = c.pods.filter((p) => p.metadata?.labels?.component !== "etcd");
    },
    failures: [`Node ${CP.name}`],
  },
  {
    name: "the scheduler's static pod not ready: reported once",
    cluster: (c) => {
      const scheduler = c.pods.find((p) => p.metadata?.labels?.component === "kube-scheduler")!;
      scheduler.status!.containerStatuses![0].ready = false;
    },
    failures: [`Pod kube-system/kube-scheduler-${CP.name}`],
  },
  {
    name: "the API server's etcd check failing",
    cluster: (c) => {
      c.readyz = c.readyz.map((r) => (r.name === "etcd" ? { ...r, ok: false } : r));
    },
    failures: ["APIServer etcd"],
  },
  {
    name: "another system-critical pod pending",
    cluster: (c) => {
      c.pods.find((p) => p.metadata?.name?.startsWith("coredns"))!.status = { phase: "Pending" };
    },
    failures: ["Pod kube-system/coredns-5d78c9869d-abcde"],
  },
  {
    name: "a system-critical pod being deleted, no longer ready: on its way out, nothing to report",
    cluster: (c) => {
      const coredns = c.pods.find((p) => p.metadata?.name?.startsWith("coredns"))!;
      coredns.metadata!.deletionTimestamp = new Date();
      coredns.status!.conditions = [{ type: "Ready", status: "False" }];
    },
    failures: [],
  },
  {
    name: "a node the cloud controller manager has not initialised",
    cluster: (c) => {
      nodeOf(c, W2.name).spec!.taints = [
        { key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" },
      ];
    },
    failures: [`Node ${W2.name}`],
  },
  {
    name: "an instance in service that never joined",
    cluster: (c) => {
      c.nodes = c.nodes.filter((n) => n.metadata?.name !== W2.name);
      c.ciliumNodes = c.ciliumNodes!.filter((n) => n.metadata.name !== W2.name);
    },
    failures: [`Machine ${W2.instanceId}`, "InstanceGroup nodes"],
  },
  {
    name: "a node not initialised by the cloud controller manager: no providerID, so its instance has no node",
    cluster: (c) => {
      const w2 = nodeOf(c, W2.name);
      delete w2.spec!.providerID;
      w2.spec!.taints = [
        { key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" },
      ];
    },
    failures: [`Machine ${W2.instanceId}`, "InstanceGroup nodes", `Node ${W2.name}`],
  },
  {
    name: "an instance leaving its group, its node gone: nothing to report",
    aws: (a) => {
      const nodes = groupOf(a, "nodes");
      nodes.Instances!.push({
        ...nodes.Instances![0],
        InstanceId: "i-0a0000000000000b0",
        LifecycleState: "Terminating:Wait",
      });
    },
    failures: [],
  },
  {
    name: "a group with no Auto Scaling group",
    aws: (a) => ({ listed: true, groups: a.groups.filter((g) => !g.Tags?.some((t) => t.Value === "nodes")) }),
    failures: ["InstanceGroup nodes"],
  },
  {
    name: "without AWS: nodes counted by role, and enough are ready",
    aws: () => ({ listed: false, reason: "no credentials" }),
    failures: [],
  },
  {
    name: "without AWS: one worker ready of the node groups' two",
    cluster: (c) => notReady(c, W2.name),
    aws: () => ({ listed: false, reason: "no credentials" }),
    failures: ["InstanceGroup nodes", `Node ${W2.name}`],
  },
  {
    name: "the kubeconfig reaching another cluster",
    cluster: (c) => {
      c.kubeadmClusterName = "prod.k8s.local";
    },
    failures: ["Cluster dev.k8s.local"],
  },
  {
    name: "an API server that does not answer",
    cluster: () => ({ reachable: false, server: "https://api.example.com", error: "connect ECONNREFUSED" }),
    failures: ["API https://api.example.com"],
  },
];

describe("the cluster check's verdict", () => {
  for (const c of CASES)
    it(c.name, () => {
      const expected = c.spec ? expectations(c.spec) : ENI;
      const cluster = healthyCluster(expected);
      const aws = healthyGroups(expected);
      const state = c.cluster?.(cluster) ?? cluster;
      const groups = c.aws?.(aws) ?? aws;
      const verdict = judge(expected, state, groups);
      expect(verdict.failures.map((f) => `${f.kind} ${f.name}`)).to.deep.equal(c.failures);
      expect(verdict.healthy).to.equal(c.failures.length === 0);
    });

  it("expects the workloads the add-ons declare, and CiliumNodes in ENI mode only", () => {
    expect(ENI.workloads.map((w) => `${w.kind} ${w.namespace}/${w.name}`)).to.have.members([
      "DaemonSet kube-system/cilium",
      "Deployment kube-system/cilium-operator",
      "DaemonSet kube-system/aws-cloud-controller-manager",
      "Deployment kube-system/aws-node-termination-handler",
      "Deployment kube-system/ebs-csi-controller",
      "DaemonSet kube-system/ebs-csi-node",
    ]);
    const noCsi = expectations(specWith({ addons: { ebsCsiDriver: { enabled: false } } }));
    expect(noCsi.workloads.map((w) => w.name)).to.not.include.members(["ebs-csi-controller", "ebs-csi-node"]);
    expect(ENI.eni).to.equal(true);
    expect(expectations(specWith({ networking: { cilium: { ipam: "crd", disableMasquerade: false } } })).eni).to.equal(
      false,
    );
  });

  it("prints kOps's table of failures and its last line, and the nodes' groups, ready and ENI addresses", () => {
    const cluster = healthyCluster(ENI);
    notReady(cluster, W1.name);
    cluster.deployments = cluster.deployments.filter((d) => d.metadata?.name !== "cilium-operator");
    const text = verdictText("dev.k8s.local", judge(ENI, cluster, healthyGroups(ENI)));
    expect(text).to.contain(
      [
        "VALIDATION ERRORS",
        "KIND           NAME                         MESSAGE",
        'InstanceGroup  nodes                        InstanceGroup "nodes" did not have enough ready nodes: 1 of at least 2',
        `Node           ${W1.name}    node "${W1.name}" is not ready`,
        "Deployment     kube-system/cilium-operator  not found (the cilium add-on declares it)",
        "",
        "Validation failed: 3 errors",
      ].join("\n"),
    );
    expect(text).to.contain(`${W1.name}  node           nodes                     us-east-1b  False\n`);
    expect(text).to.contain(
      `ENI ADDRESSES\nNODE                       ENIS  IPS  USED  FREE\n${CP.name}  2     10   3     7\n`,
    );
    const healthy = verdictText("dev.k8s.local", judge(ENI, healthyCluster(ENI), healthyGroups(ENI)));
    expect(healthy).to.not.contain("VALIDATION ERRORS");
    expect(healthy.trimEnd().split("\n").pop()).to.equal("Your cluster dev.k8s.local is ready");
  });
});
