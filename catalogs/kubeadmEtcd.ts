/**
 * The etcd each kubeadm release deploys for its own Kubernetes minor (`SupportedEtcdVersion` in
 * cmd/kubeadm/app/constants/constants.go of k8s.io/kubernetes at that release), and what etcd requires
 * before a member of its next minor joins. A control-plane node runs the etcd its kubeadm pins for the
 * cluster's ClusterConfiguration, so the cluster's etcd follows kubernetesVersion. Read from the releases
 * below in the module proxy's sources; within a minor kubeadm only ever raises its pin.
 */

export interface EtcdPin {
  /** The kubeadm release (`X.Y.Z`) whose constants.go was read. */
  kubernetes: string;
  /** The etcd version it pins for its own minor, without kubeadm's image revision (`-0`). */
  etcd: string;
}

export const KUBEADM_ETCD_PINS: readonly EtcdPin[] = [
  { kubernetes: "1.30.0", etcd: "3.5.12" },
  { kubernetes: "1.30.14", etcd: "3.5.15" },
  { kubernetes: "1.31.0", etcd: "3.5.15" },
  { kubernetes: "1.31.14", etcd: "3.5.24" },
  { kubernetes: "1.32.0", etcd: "3.5.16" },
  { kubernetes: "1.32.13", etcd: "3.5.24" },
  { kubernetes: "1.33.0", etcd: "3.5.21" },
  { kubernetes: "1.33.5", etcd: "3.5.21" },
  { kubernetes: "1.33.11", etcd: "3.5.24" },
  { kubernetes: "1.33.13", etcd: "3.5.24" },
  { kubernetes: "1.34.0", etcd: "3.6.4" },
  { kubernetes: "1.34.12", etcd: "3.6.5" },
  { kubernetes: "1.35.0", etcd: "3.6.6" },
  { kubernetes: "1.35.4", etcd: "3.6.6" },
  { kubernetes: "1.35.8", etcd: "3.6.6" },
  { kubernetes: "1.36.0", etcd: "3.6.8" },
  { kubernetes: "1.36.5", etcd: "3.6.8" },
  { kubernetes: "1.37.2", etcd: "3.7.0" },
];

/**
 * The oldest release of the minor before it each of its members must run before a member of an etcd minor
 * joins. etcd's upgrade_3_6 guide ("Update 3.5"): every 3.5 member at 3.5.26 or later, whose patch releases
 * 3.5.24 to 3.5.26 fix upgrade blockers (members replaced over the cluster's life, as instance refreshes
 * replace them here, among them).
 */
export const ETCD_MINOR_UPGRADE_FLOOR: Readonly<Record<string, string>> = {
  "3.6": "3.5.26",
};
