/**
 * The steps of a node's bootstrap, per role: data the renderer turns into the script's `main`, and the
 * list of modules (files under bootstrap/) a group's user data carries. Pure.
 */
import type { BootstrapConfig } from "./bootstrapConfig";

/** The files under bootstrap/, one concern each; `lib` is in every script. */
export type BootstrapModule =
  | "lib"
  | "role"
  | "kernel"
  | "network"
  | "packages"
  | "runtime"
  | "kubelet"
  | "kubeadm"
  | "control-plane"
  | "etcd"
  | "join-credential"
  | "node-credentials"
  | "kubelet-serving"
  | "encryption"
  | "parameters"
  | "upgrade"
  | "launch-hook"
  | "drain"
  | "authenticator";

export interface BootstrapStep {
  /** The step's name in the node's log. */
  name: string;
  /** The module the step needs: it defines `run`, or depends on the module that does. */
  module: BootstrapModule;
  /** The shell function the step runs. */
  run: string;
}

/**
 * Modules a module calls into, beyond `lib`: a worker's join is kubeadm's, with the credential it reads
 * (join-credential); a control-plane node's join and init are kubeadm's too, it signs its own credential
 * (node-credentials), its join first removes departed etcd members (etcd), restores the latest snapshot when it
 * creates the cluster again (etcd), sends its launch hook heartbeats (launch-hook) and moves an older cluster
 * to its release (upgrade), which renders kubeadm's configuration (kubeadm) and, finishing an upgrade, retires
 * the bootstrap tokens' approval again (node-credentials), and its member leaves once the node is drained (drain); it
 * approves the kubelets' serving certificates with drain's kubectl (kubelet-serving); the
 * workers' credentials, the encryption keys and the cluster's shared keys are written to SSM (parameters), the credentials
 * signed as kubeadm's configuration says (kubeadm), for instances that have no Node (drain's kubectl).
 */
export const MODULE_DEPENDENCIES: Partial<Record<BootstrapModule, BootstrapModule[]>> = {
  "join-credential": ["kubeadm"],
  upgrade: ["kubeadm", "node-credentials"],
  "control-plane": [
    "kubeadm",
    "etcd",
    "upgrade",
    "drain",
    "node-credentials",
    "kubelet-serving",
    "parameters",
    "launch-hook",
  ],
  "kubelet-serving": ["drain"],
  "node-credentials": ["kubeadm", "parameters", "drain"],
  encryption: ["parameters"],
};

export function bootstrapSteps(config: BootstrapConfig): BootstrapStep[] {
  const controlPlane = config.role === "control-plane";
  const steps: (BootstrapStep | false)[] = [
    { name: "node-role", module: "role", run: "record_node_role" },
    { name: "kernel", module: "kernel", run: "configure_kernel" },
    { name: "network", module: "network", run: "configure_networkd" },
    { name: "packages", module: "packages", run: "install_packages" },
    { name: "containerd", module: "runtime", run: "configure_containerd" },
    // Before kubeadm writes the API server's manifest, which names the file.
    controlPlane && { name: "encryption-config", module: "encryption", run: "write_encryption_config" },
    // Before kubeadm too: the API server reads its kubeconfig for the admins' token webhook at start.
    controlPlane && { name: "admin-authenticator", module: "authenticator", run: "prepare_authenticator" },
    { name: "kubelet", module: "kubelet", run: "configure_kubelet" },
    // Before the join adds this node's etcd member: a termination from then on removes it.
    controlPlane && { name: "etcd-leave", module: "control-plane", run: "arm_etcd_leave" },
    // kubeadm's join (kubeadm.sh), with what only the node's role does around it.
    { name: "join", module: controlPlane ? "control-plane" : "join-credential", run: "join_cluster" },
    // kubeadm init's bootstrap token, and its approval of any node name for one, gone before the node is in service.
    controlPlane && { name: "bootstrap-tokens", module: "node-credentials", run: "retire_bootstrap_tokens" },
    // The keys kubeadm init made, for the next control-plane nodes (and the CA's certificate for workers and
    // pulumi up), stored before the node is in service: a node that joined fetched them before its join.
    controlPlane && { name: "shared-pki", module: "control-plane", run: "share_control_plane_pki" },
    // The admins' token webhook, once kubeadm has started the API server beside it.
    controlPlane && { name: "admin-authenticator-pod", module: "authenticator", run: "start_authenticator" },
    // kubeadm join returns once etcd is healthy with this node's member, promoted: the control plane's gate.
    controlPlane && { name: "control-plane-services", module: "control-plane", run: "start_control_plane_services" },
    // Last: the instance goes InService only once every other step has succeeded.
    { name: "launch-hook", module: "launch-hook", run: "complete_launch_hook" },
  ];
  return steps.filter((s): s is BootstrapStep => s !== false);
}

/** The modules a script with these steps needs, with dependencies; `lib` first. */
export function modulesFor(steps: BootstrapStep[]): BootstrapModule[] {
  const modules: BootstrapModule[] = ["lib"];
  const add = (m: BootstrapModule) => {
    for (const d of MODULE_DEPENDENCIES[m] ?? []) add(d);
    if (!modules.includes(m)) modules.push(m);
  };
  for (const s of steps) add(s.module);
  return modules;
}
