/**
 * What a change of `kubernetesVersion` may be on a running cluster, from the version the stack last applied
 * to the one it is set to. Pure: the program refuses what these rules refuse before it declares anything,
 * and the plan states the rest.
 * - kubeadm's version policy (cmd/kubeadm/app/phases/upgrade/policy.go, `EnforceVersionPolicies`): one minor
 *   at a time, and never down (the program's upgrade replaces control-plane nodes, so it never goes down a
 *   patch either: bootstrap/upgrade.sh refuses to join a newer cluster);
 * - the kubelet never newer than the API server, and at most three minors older (Kubernetes's version skew
 *   policy): node groups roll onto a newer minor only after the control plane (components/cluster.ts);
 * - etcd follows kubeadm's pin for the cluster's version (catalogs/kubeadmEtcd.ts), and a member of the next
 *   etcd minor joins only once every member runs what etcd requires first.
 */
import { parseSemver } from "../../catalogs/ciliumVersions";
import { ETCD_MINOR_UPGRADE_FLOOR, EtcdPin, KUBEADM_ETCD_PINS } from "../../catalogs/kubeadmEtcd";
import { newestPatch } from "../../catalogs/kubernetesReleases";
import { FieldError, invalid, withSuggestion } from "./fieldErrors";

const FIELD = "kubernetesVersion";

/** How far a version moves: not at all, within its minor, or to the next minor (or further, refused). */
export type UpgradeKind = "none" | "patch" | "minor";

export interface KubernetesUpgrade {
  from: string;
  to: string;
  kind: UpgradeKind;
  /** The etcd kubeadm deploys at each version (at least: the recorded pin at or below it), if recorded. */
  etcd: { from?: string; to?: string };
}

/** Orders `X.Y.Z` versions: negative when a is older. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parseSemver(a), parseSemver(b)];
  if (!x || !y) throw new Error(`not a version: ${x ? b : a}`);
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
}

const minorOf = (version: string) => version.split(".").slice(0, 2).join(".");

/**
 * The etcd kubeadm deploys for a Kubernetes release: the pin of the newest recorded release of its minor at
 * or below it. kubeadm only raises its pin within a minor, so this is the least the release runs.
 */
export function kubeadmEtcd(kubernetes: string, pins: readonly EtcdPin[] = KUBEADM_ETCD_PINS): string | undefined {
  return pins
    .filter((p) => minorOf(p.kubernetes) === minorOf(kubernetes) && compareVersions(p.kubernetes, kubernetes) <= 0)
    .at(-1)?.etcd;
}

/**
 * What going from `from` (the last applied version; undefined for a cluster not created yet) to `to` is.
 * `pins`: kubeadm's etcd pins (a test gives others).
 */
export function kubernetesUpgrade(
  from: string | undefined,
  to: string,
  pins: readonly EtcdPin[] = KUBEADM_ETCD_PINS,
): KubernetesUpgrade | undefined {
  if (from === undefined) return undefined;
  const [a, b] = [parseSemver(from)!, parseSemver(to)!];
  const kind: UpgradeKind = from === to ? "none" : a.major === b.major && a.minor === b.minor ? "patch" : "minor";
  return { from, to, kind, etcd: { from: kubeadmEtcd(from, pins), to: kubeadmEtcd(to, pins) } };
}

/**
 * Whether a kubelet of one version may run against API servers of another: never newer by a minor, at most
 * three minors older (https://kubernetes.io/releases/version-skew-policy/#kubelet).
 */
export function kubeletMayRunWith(kubelet: string, apiServer: string): boolean {
  const [k, a] = [parseSemver(kubelet)!, parseSemver(apiServer)!];
  return k.major === a.major && k.minor <= a.minor && k.minor >= a.minor - 3;
}

/** The etcd a move between two etcd versions crosses into needs first, when it crosses into a new minor. */
function etcdFloorError(upgrade: KubernetesUpgrade, pins: readonly EtcdPin[]): FieldError[] {
  const { from, to } = upgrade.etcd;
  if (!from || !to || minorOf(to) === minorOf(from)) return [];
  const floor = ETCD_MINOR_UPGRADE_FLOOR[minorOf(to)];
  if (floor && compareVersions(from, floor) >= 0) return [];
  const moves = `${upgrade.from} → ${upgrade.to} moves etcd ${from} → ${to} (kubeadm's pins)`;
  const keep = `keep kubernetesVersion ${upgrade.from}`;
  if (!floor) {
    const detail = `${moves}, and what etcd ${minorOf(to)} requires of a cluster upgraded to it is not recorded (catalogs/kubeadmEtcd.ts): ${keep}`;
    return [withSuggestion(invalid(FIELD, upgrade.to, detail), upgrade.from)];
  }
  const needs = `etcd ${minorOf(to)} joins a cluster only once every ${minorOf(from)} member runs ${floor} or later (etcd's upgrade guide)`;
  const route = pins.find(
    (p) => minorOf(p.kubernetes) === minorOf(upgrade.from) && compareVersions(p.etcd, floor) >= 0,
  );
  if (route && compareVersions(route.kubernetes, upgrade.from) > 0) {
    const detail = `${moves}, and ${needs}: go to ${route.kubernetes} first (kubeadm ${route.kubernetes} pins etcd ${route.etcd}), pulumi up, then on`;
    return [withSuggestion(invalid(FIELD, upgrade.to, detail), route.kubernetes)];
  }
  const newest = pins.filter((p) => minorOf(p.kubernetes) === minorOf(upgrade.from)).at(-1)!;
  const detail =
    `${moves}, and ${needs}; no kubeadm ${minorOf(upgrade.from)} release pins one (${newest.kubernetes}, the newest ` +
    `read, pins ${newest.etcd}), so this cluster cannot move to ${minorOf(upgrade.to)} in place: ${keep}, or build a ` +
    `new cluster at ${upgrade.to} and move the workloads`;
  return [withSuggestion(invalid(FIELD, upgrade.to, detail), upgrade.from)];
}

/**
 * The field errors of setting `kubernetesVersion` to `to` on a cluster that last applied `from`: a downgrade,
 * a skipped minor, an etcd upgrade etcd refuses. None for a cluster not created yet (`from` undefined).
 */
export function upgradeErrors(
  from: string | undefined,
  to: string,
  pins: readonly EtcdPin[] = KUBEADM_ETCD_PINS,
): FieldError[] {
  const upgrade = kubernetesUpgrade(from, to, pins);
  if (!upgrade || upgrade.kind === "none") return [];
  const [a, b] = [parseSemver(upgrade.from)!, parseSemver(to)!];
  const applied = `the cluster runs ${upgrade.from} (the version this stack last applied)`;
  if (compareVersions(to, upgrade.from) < 0) {
    const detail = `${applied}: Kubernetes is never downgraded in place (kubeadm upgrades only go up, and new control-plane nodes refuse to join a newer cluster)`;
    return [withSuggestion(invalid(FIELD, to, detail), upgrade.from)];
  }
  if (a.major !== b.major || b.minor > a.minor + 1) {
    const next = `${a.major}.${a.minor + 1}`;
    const step = newestPatch(next)?.version ?? `${next}.0`;
    const detail = `${applied}: Kubernetes upgrades one minor version at a time (kubeadm's version policy): go to ${step} first, pulumi up, then on`;
    return [withSuggestion(invalid(FIELD, to, detail), step)];
  }
  return etcdFloorError(upgrade, pins);
}

/**
 * Whether node groups must wait for the whole control plane: their new kubelet could not run with the API
 * servers the cluster runs before the upgrade (a new minor). A patch upgrade rolls them alongside.
 */
export const nodesRollAfterControlPlane = (upgrade: KubernetesUpgrade | undefined): boolean =>
  upgrade !== undefined && !kubeletMayRunWith(upgrade.to, upgrade.from);

/**
 * Said when a new cluster (nothing applied yet) is created at a release from which the next minor can never
 * be reached in place, even from the newest recorded patch of its minor (etcd's upgrade floor beyond every
 * kubeadm pin of that minor): once created, only a new cluster moves it on. Created at the next minor's
 * newest patch instead, it could be. `undefined` when there is a path, or nothing to say.
 */
export function noUpgradePathNotice(
  applied: string | undefined,
  version: string,
  pins: readonly EtcdPin[] = KUBEADM_ETCD_PINS,
): string | undefined {
  const own = parseSemver(version);
  if (applied !== undefined || !own) return undefined;
  const next = `${own.major}.${own.minor + 1}`;
  const target = newestPatch(next)?.version;
  if (!target) return undefined;
  const newestOwn = newestPatch(minorOf(version))?.version ?? version;
  const from = compareVersions(newestOwn, version) > 0 ? newestOwn : version;
  const refused = upgradeErrors(from, target, pins);
  // Refused with a step of its minor to go through first is a path; refused with "keep it" is none.
  if (refused.length === 0 || refused[0].suggested?.value !== from) return undefined;
  return (
    `kubernetesVersion ${version}: a cluster created at ${minorOf(version)} can never be upgraded in place to ` +
    `${next}: from ${from}, the newest ${minorOf(version)} release recorded, ${refused[0].detail}. Created at ` +
    `${target} instead, it could be: pulumi config set kubernetesVersion ${target}`
  );
}
