/**
 * A cluster of the dev stack's shape as the cluster check reads it, healthy, for the verdict's table test to
 * break one thing at a time: the dev stack's instance groups (one control-plane node, two workers) with
 * their Auto Scaling groups, kubeadm's static pods, every workload the add-ons declare ready, and a
 * CiliumNode per node with free addresses.
 */
import type { AutoScalingGroup } from "@aws-sdk/client-auto-scaling";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { INSTANCE_GROUP_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import type { AwsGroups, CiliumNode, ReachedCluster } from "../../cli/clusterCheck/clusterState";
import { CONTROL_PLANE_COMPONENTS, Expectations } from "../../cli/clusterCheck/expectations";

export interface Machine {
  name: string;
  instanceId: string;
  group: string;
  zone: string;
  controlPlane?: boolean;
}

export const MACHINES: Machine[] = [
  {
    name: "ip-10-0-1-10.ec2.internal",
    instanceId: "i-0a0000000000000c1",
    group: "control-plane-us-east-1a",
    zone: "us-east-1a",
    controlPlane: true,
  },
  { name: "ip-10-0-2-20.ec2.internal", instanceId: "i-0a0000000000000b1", group: "nodes", zone: "us-east-1b" },
  { name: "ip-10-0-3-30.ec2.internal", instanceId: "i-0a0000000000000b2", group: "nodes", zone: "us-east-1c" },
];

/** A Node as the kubelet registers it and the cloud controller manager initialises it: ready. */
export function node(m: Machine): V1Node {
  return {
    metadata: {
      name: m.name,
      labels: {
        "kubernetes.io/hostname": m.name,
        "topology.kubernetes.io/zone": m.zone,
        ...(m.controlPlane ? { "node-role.kubernetes.io/control-plane": "" } : {}),
      },
    },
    spec: {
      providerID: `aws:///${m.zone}/${m.instanceId}`,
      taints: m.controlPlane ? [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] : [],
    },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
}

/** A running, ready pod. */
export function pod(
  namespace: string,
  name: string,
  extra: Partial<V1Pod["spec"]> & { labels?: Record<string, string> } = {},
): V1Pod {
  const { labels, ...spec } = extra;
  return {
    metadata: { namespace, name, labels },
    spec: { containers: [{ name: name.split("-")[0] }], ...spec },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: "True" }],
      containerStatuses: [{ name: name.split("-")[0], ready: true, image: "", imageID: "", restartCount: 0 }],
    },
  };
}

export function ciliumNode(name: string, ips: number, used: number, enis = 2): CiliumNode {
  const pool = Array.from({ length: ips }, (_, i) => `10.0.9.${i + 1}`);
  const eniIds = Array.from({ length: enis }, (_, i) => `eni-0${i}`);
  return {
    metadata: { name },
    spec: { ipam: { pool: Object.fromEntries(pool.map((ip, i) => [ip, { resource: eniIds[i % enis] }])) } },
    status: {
      eni: { enis: Object.fromEntries(eniIds.map((id) => [id, { id }])) },
      ipam: { used: Object.fromEntries(pool.slice(0, used).map((ip) => [ip, { owner: `default/pod-${ip}` }])) },
    },
  };
}

export function healthyCluster(expected: Expectations): ReachedCluster {
  const controlPlane = MACHINES.filter((m) => m.controlPlane);
  const staticPods = controlPlane.flatMap((m) =>
    CONTROL_PLANE_COMPONENTS.map((c) =>
      pod("kube-system", `${c}-${m.name}`, {
        nodeName: m.name,
        priorityClassName: "system-node-critical",
        labels: { component: c, tier: "control-plane" },
      }),
    ),
  );
  const meta = (namespace: string, name: string) => ({ namespace, name, generation: 2 });
  return {
    reachable: true,
    readyz: [
      { name: "ping", ok: true },
      { name: "etcd", ok: true },
      { name: "etcd-readiness", ok: true },
    ],
    kubeadmClusterName: expected.clusterName,
    nodes: MACHINES.map(node),
    pods: [
      ...staticPods,
      pod("kube-system", "coredns-5d78c9869d-abcde", { priorityClassName: "system-cluster-critical" }),
    ],
    daemonSets: expected.workloads
      .filter((w) => w.kind === "DaemonSet")
      .map((w) => ({
        metadata: meta(w.namespace, w.name),
        status: {
          observedGeneration: 2,
          currentNumberScheduled: 3,
          desiredNumberScheduled: 3,
          numberMisscheduled: 0,
          numberReady: 3,
          updatedNumberScheduled: 3,
        },
      })),
    deployments: expected.workloads
      .filter((w) => w.kind === "Deployment")
      .map((w) => ({
        metadata: meta(w.namespace, w.name),
        spec: { replicas: 2, selector: {}, template: {} },
        status: { observedGeneration: 2, replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
      })),
    ciliumNodes: MACHINES.map((m) => ciliumNode(m.name, 10, 3)),
  };
}

/** The dev stack's Auto Scaling groups, every machine in service on the pinned template version. */
export function healthyGroups(expected: Expectations): AwsGroups & { listed: true } {
  const groups = expected.groups.map((g): AutoScalingGroup => ({
    AutoScalingGroupName: `${g.name}.${expected.clusterName}`,
    MinSize: g.minSize,
    MaxSize: g.maxSize,
    DesiredCapacity: g.desiredCapacity ?? g.minSize,
    DefaultCooldown: 300,
    AvailabilityZones: g.zones,
    HealthCheckType: "EC2",
    CreatedTime: new Date(0),
    LaunchTemplate: { LaunchTemplateName: `${g.name}.${expected.clusterName}`, Version: "3" },
    Instances: MACHINES.filter((m) => m.group === g.name).map((m) => ({
      InstanceId: m.instanceId,
      InstanceType: g.instanceType,
      AvailabilityZone: m.zone,
      LifecycleState: "InService",
      HealthStatus: "Healthy",
      ProtectedFromScaleIn: false,
      LaunchTemplate: { Version: "3" },
    })),
    Tags: [
      { Key: INSTANCE_GROUP_TAG, Value: g.name },
      { Key: ROLE_TAGS[g.role], Value: "1" },
    ],
  }));
  return { listed: true, groups };
}
