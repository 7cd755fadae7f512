/**
 * The steps of a node's bootstrap, per role: data the renderer turns into the script's `main`, and the
 * list of modules (files under bootstrap/) a group's user data carries. Pure.
 */
import type { BootstrapConfig } from "./bootstrapConfig";

/** The files under bootstrap/, one concern each; `lib` is in every script. */
export type BootstrapModule =
  | "lib"
  | "kernel"
  | "network"
  | "packages"
  | "runtime"
  | "pki"
  | "kubelet"
  | "kubeadm"
  | "control-plane"
  | "etcd"
  | "health"
  | "control-plane-tools";

export interface BootstrapStep {
  /** The step's name in the node's log. */
  name: string;
  /** The module that defines `run`. */
  module: BootstrapModule;
  /** The shell function the step runs. */
  run: string;
}

/** Modules a module calls into, beyond `lib`: kubeadm hashes the CA (pki); init is kubeadm's too. */
export const MODULE_DEPENDENCIES: Partial<Record<BootstrapModule, BootstrapModule[]>> = {
  kubeadm: ["pki"],
  "control-plane": ["kubeadm"],
  etcd: ["packages", "control-plane-tools"],
};

/**
 * What the script does when given a command instead of running its steps: `report-unhealthy` is the
 * join-deadline unit's (docs/nodes.md).
 */
export const BOOTSTRAP_COMMANDS: Record<string, { module: BootstrapModule; run: string }> = {
  "report-unhealthy": { module: "health", run: "report_unhealthy" },
};

export function bootstrapSteps(config: BootstrapConfig): BootstrapStep[] {
  const controlPlane = config.role === "control-plane";
  const steps: (BootstrapStep | false)[] = [
    { name: "kernel", module: "kernel", run: "configure_kernel" },
    { name: "network", module: "network", run: "configure_networkd" },
    { name: "packages", module: "packages", run: "install_packages" },
    { name: "containerd", module: "runtime", run: "configure_containerd" },
    controlPlane && { name: "control-plane-pki", module: "control-plane", run: "fetch_control_plane_pki" },
    controlPlane && { name: "control-plane-tools", module: "control-plane-tools", run: "fetch_control_plane_tools" },
    { name: "kubelet", module: "kubelet", run: "configure_kubelet" },
    controlPlane && { name: "etcd-volume", module: "etcd", run: "prepare_etcd" },
    { name: "join", module: "kubeadm", run: "join_cluster" },
    controlPlane && { name: "etcd", module: "etcd", run: "settle_etcd" },
  ];
  return steps.filter((s): s is BootstrapStep => s !== false);
}

/** The modules a script with these steps needs (and its commands), with dependencies; `lib` first. */
export function modulesFor(steps: BootstrapStep[]): BootstrapModule[] {
  const modules: BootstrapModule[] = ["lib"];
  const add = (m: BootstrapModule) => {
    for (const d of MODULE_DEPENDENCIES[m] ?? []) add(d);
    if (!modules.includes(m)) modules.push(m);
  };
  for (const s of [...steps, ...Object.values(BOOTSTRAP_COMMANDS)]) add(s.module);
  return modules;
}
