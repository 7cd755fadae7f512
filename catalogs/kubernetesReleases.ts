/**
 * The Kubernetes releases known to exist (catalogs/recorded/kubernetesReleasesRecord.ts, written by
 * `npm run update-catalogs`): a version not among them has no kubeadm or kubelet packages to install, so a
 * node would fail at boot.
 */
import { KUBERNETES_RELEASES } from "./recorded/kubernetesReleasesRecord";

export interface KubernetesRelease {
  /** `X.Y.Z`, without a `v`. */
  version: string;
  /** The day it was tagged, `YYYY-MM-DD`; absent where the source did not answer for a patch below a recorded one. */
  date?: string;
}

const minorOf = (version: string): string => version.split(".").slice(0, 2).join(".");

export const isRecordedKubernetesRelease = (version: string): boolean =>
  KUBERNETES_RELEASES.some((r) => r.version === version);

/** The newest recorded patch of a minor (`1.35`), if the minor has any. */
export function newestPatch(minor: string): KubernetesRelease | undefined {
  return KUBERNETES_RELEASES.filter((r) => minorOf(r.version) === minor).at(-1);
}

/** The recorded minors, oldest first. */
export const recordedMinors = (): string[] => [...new Set(KUBERNETES_RELEASES.map((r) => minorOf(r.version)))];

/** The day of the newest recorded release: releases after it are not known yet. */
export const recordedUntil = (): string =>
  KUBERNETES_RELEASES.flatMap((r) => r.date ?? [])
    .sort()
    .at(-1) ?? "";
