/**
 * The real Kubernetes and etcd binaries that `npm run build:kubernetes` builds from their Go modules
 * (tools/<component>/<version>/) into the cache outside the clone (CACHE_ROOT/kubernetes/<version>/). A test that needs one calls
 * `requireBinary`: without it the test skips, naming the script; with `CI=true` it fails instead.
 */
import { accessSync, constants, readdirSync } from "fs";
import { homedir } from "os";
import { join } from "path";
import { cannotRun } from "../cannotRun";
import { DEFAULT_KUBERNETES_VERSION } from "../../catalogs/ciliumVersions";

const ROOT = join(__dirname, "..", "..");
/** The project's build cache outside the clone (CILIUM_CLUSTER_CACHE, by default ~/.cache/cilium-cluster). */
export const CACHE_ROOT = process.env.CILIUM_CLUSTER_CACHE || join(homedir(), ".cache", "cilium-cluster");
export const BINARY_CACHE = join(CACHE_ROOT, "kubernetes");
export const BUILD_SCRIPT = "npm run build:kubernetes";

/** The one version each component has a module for, e.g. `v3.6.6` for etcd. */
const onlyVersion = (component: string): string => {
  const versions = readdirSync(join(ROOT, "tools", component));
  if (versions.length !== 1) throw new Error(`tools/${component} holds ${versions.length} versions, not one`);
  return versions[0];
};

/** The Kubernetes version the program deploys by default, whose control plane the tests run. */
export const KUBERNETES_VERSION = `v${DEFAULT_KUBERNETES_VERSION}`;
/** The etcd version kubeadm pins for that Kubernetes version (a test checks it against kubeadm itself). */
export const ETCD_VERSION = onlyVersion("etcd");

/** The AWS cloud controller manager's release (the program's, or the nearest the Go module proxy serves). */
export const CLOUD_CONTROLLER_VERSION = onlyVersion("cloud-provider-aws");

export type Binary =
  | "kubeadm"
  | "kube-apiserver"
  | "kube-controller-manager"
  | "kube-scheduler"
  | "etcd"
  | "etcdctl"
  | "etcdutl"
  | "aws-cloud-controller-manager";

const defaultVersion = (name: Binary) =>
  name.startsWith("etcd")
    ? ETCD_VERSION
    : name === "aws-cloud-controller-manager"
      ? CLOUD_CONTROLLER_VERSION
      : KUBERNETES_VERSION;

/** The binary's path in the cache, whether or not it has been built. */
export const binaryPath = (name: Binary, version = defaultVersion(name)): string => join(BINARY_CACHE, version, name);

/** The reason a test cannot run, or undefined when the binary is built. Throws under `CI=true`. */
export function missingBinary(name: Binary, version = defaultVersion(name), env = process.env): string | undefined {
  try {
    accessSync(binaryPath(name, version), constants.X_OK);
    return undefined;
  } catch {
    const reason = `${name} ${version} is not built: run ${BUILD_SCRIPT}`;
    if (env.CI === "true") throw new Error(`${reason} (required when CI=true)`);
    return reason;
  }
}

/** The binary's path; skips the calling test or hook (with a visible reason) when it is not built. */
export function requireBinary(context: Mocha.Context, name: Binary, version = defaultVersion(name)): string {
  const reason = missingBinary(name, version);
  if (reason) cannotRun(context, reason);
  return binaryPath(name, version);
}
