/**
 * A stand-in for the kubelets of the nodes a test registers (this sandbox runs no container runtime, so no
 * real kubelet): each Node registered as the kubelet registers itself (pkg/kubelet/kubelet_node_status.go:
 * the well-known labels, `--register-with-taints`), a Ready condition as the kubelet sets it before any CNI
 * configuration exists (pkg/kubelet/kubelet.go, updateRuntimeUp), and the Lease it keeps renewed. The node
 * lifecycle controller, the real one, taints such nodes not-ready; the scheduler, the real one, judges.
 */
import { parseAllDocuments } from "yaml";
import { KUBERNETES_VERSION } from "./binaries";
import type { ControlPlane } from "./controlPlane";

/** The Ready condition of a kubelet whose container runtime reports no network yet. */
const NOT_READY = {
  type: "Ready",
  status: "False",
  reason: "KubeletNotReady",
  message:
    "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
};

export interface NodeShape {
  name: string;
  arch: "amd64" | "arm64";
  labels?: Record<string, string>;
  taints: { key: string; effect: string; value?: string }[];
  /** The kubelet's release (`v1.35.4`); the default Kubernetes version's when left out. */
  kubeletVersion?: string;
  /** The instance, as the bootstrap's kubelet.sh gives it the kubelet: `aws:///ZONE/INSTANCE-ID`. */
  providerID?: string;
}

/** What a kubelet that has just registered reports: not ready, because no CNI has written its config yet. */
function nodeStatus(node: NodeShape, ip: string) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  const resources = { cpu: "4", memory: "16Gi", pods: "110", "ephemeral-storage": "100Gi" };
  return {
    status: {
      addresses: [
        { type: "InternalIP", address: ip },
        { type: "Hostname", address: node.name },
      ],
      capacity: resources,
      allocatable: resources,
      conditions: [
        condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        { ...NOT_READY, lastHeartbeatTime: now, lastTransitionTime: now },
      ],
      nodeInfo: {
        kubeletVersion: node.kubeletVersion ?? KUBERNETES_VERSION,
        architecture: node.arch,
        operatingSystem: "linux",
      },
    },
  };
}

let nextAddress = 20;

/**
 * Registers a Node as its kubelet would (the labels the kubelet sets, `--register-with-taints` from the
 * node's kubeadm nodeRegistration, a NotReady status) and the Lease it renews; the heartbeat keeps it fresh.
 */
export function registerNode(cp: ControlPlane, node: NodeShape, ip = `10.0.2.${nextAddress++}`): void {
  const labels = {
    "kubernetes.io/hostname": node.name,
    "kubernetes.io/os": "linux",
    "kubernetes.io/arch": node.arch,
    "beta.kubernetes.io/os": "linux",
    "beta.kubernetes.io/arch": node.arch,
    ...node.labels,
  };
  cp.kubectl(
    ["create", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: node.name, labels },
      spec: { taints: node.taints, providerID: node.providerID },
    }),
  );
  cp.kubectl([
    "patch",
    "node",
    node.name,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify(nodeStatus(node, ip)),
  ]);
  cp.kubectl(
    ["create", "-f", "-"],
    JSON.stringify({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: node.name, namespace: "kube-node-lease" },
      spec: {
        holderIdentity: node.name,
        leaseDurationSeconds: 40,
        renewTime: new Date().toISOString().replace(/Z$/, "000Z"),
      },
    }),
  );
}

/**
 * The kubelets' heartbeat: every node's Lease renewed every 5 seconds (a kubelet renews its own every quarter
 * of its 40-second lease duration: pkg/kubelet/kubelet.go, nodeLeaseRenewIntervalFraction).
 */
export const HEARTBEAT = `while sleep 5; do
  now=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
  for n in $("$KUBECTL" get nodes -o 'jsonpath={.items[*].metadata.name}'); do
    "$KUBECTL" -n kube-node-lease patch lease "$n" --type=merge -p "{\\"spec\\":{\\"renewTime\\":\\"$now\\"}}" >/dev/null
  done
done`;

/** What the kubelet adds under `--cloud-provider=external` until a cloud controller initialises the node. */
export const UNINITIALIZED_TAINT = {
  key: "node.cloudprovider.kubernetes.io/uninitialized",
  value: "true",
  effect: "NoSchedule",
};

/**
 * The taints a kubelet registers with from a rendered kubeadm configuration: its nodeRegistration's, and the
 * cloud taint when its kubelet flags say `cloud-provider: external` (pkg/kubelet/kubelet_node_status.go).
 */
export function registrationTaints(text: string): NodeShape["taints"] {
  const registration = parseAllDocuments(text)
    .map((d) => d.toJS())
    .find((d) => d.kind === "JoinConfiguration" || d.kind === "InitConfiguration").nodeRegistration;
  const args = registration.kubeletExtraArgs ?? [];
  const flags: [string, string][] = Array.isArray(args) ? args.map((a) => [a.name, a.value]) : Object.entries(args);
  const external = flags.some(([name, value]) => name === "cloud-provider" && value === "external");
  return [...(registration.taints ?? []), ...(external ? [UNINITIALIZED_TAINT] : [])];
}

/** Whether a node still carries the cloud taint, that is, no cloud controller has initialised it. */
export const uninitialized = (cp: ControlPlane, name: string): boolean =>
  (JSON.parse(cp.kubectl(["get", "node", name, "-o", "json"])).spec.taints ?? []).some(
    (t: { key: string }) => t.key === UNINITIALIZED_TAINT.key,
  );

/** Sets every node's Ready condition as its kubelet reports it: not ready before a CNI config exists, then ready. */
export function setReady(cp: ControlPlane, names: string[], ready: boolean): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const condition = ready
    ? { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" }
    : NOT_READY;
  for (const name of names) {
    const patch = { status: { conditions: [{ ...condition, lastHeartbeatTime: now, lastTransitionTime: now }] } };
    cp.kubectl(["patch", "node", name, "--subresource=status", "--type=strategic", "-p", JSON.stringify(patch)]);
  }
}

/**
 * Whether the node lifecycle controller has tainted a node `node.kubernetes.io/not-ready:NoSchedule`. (Not
 * NoExecute: with every node of the zone not ready, the controller is in full disruption and evicts nothing.)
 */
export const taintedNotReady = (cp: ControlPlane, name: string): boolean =>
  (JSON.parse(cp.kubectl(["get", "node", name, "-o", "json"])).spec.taints ?? []).some(
    (t: { key: string; effect: string }) => t.key === "node.kubernetes.io/not-ready" && t.effect === "NoSchedule",
  );

/**
 * The mirror pods a kubelet posts for its static pods (pkg/kubelet/pod/mirror_client.go): each manifest's
 * pod, named `<pod>-<node>`, bound to the node, with the mirror annotation. kubeadm reads the control plane's
 * versions and advertise addresses from them. They stay Pending here: no kubelet runs them.
 */
export function postMirrorPods(cp: ControlPlane, nodeName: string, manifests: string[]): void {
  for (const text of manifests) {
    const pod = parseAllDocuments(text)[0].toJS();
    pod.metadata.name = `${pod.metadata.name}-${nodeName}`;
    pod.metadata.annotations = {
      ...pod.metadata.annotations,
      "kubernetes.io/config.mirror": "mirror",
      "kubernetes.io/config.source": "file",
    };
    pod.spec.nodeName = nodeName;
    delete pod.status;
    cp.kubectl(["apply", "--server-side", "-f", "-"], JSON.stringify(pod));
  }
}
