/**
 * The parity test's cases: every example stack on its line's chart release, and both IPAM extremes
 * (default and ENI) on every shipped line; and both renders of a case, the program's and the chart's.
 */ import { expect } from "chai";
import { existsSync } from "fs";
import { join } from "path";
import { renderCiliumManifests } from "../../components/cilium/manifests";
import { examples, PROJECT_DIR } from "../../plan/examples";
import { loadStackConfig, toRuntimeConfig } from "../../plan/stackConfig";
import { CILIUM_LINES, CiliumLine } from "../../spec/ciliumVersions";
import { readRawConfig } from "../../spec/read";
import type { ClusterSpec } from "../../spec/types";
import { validateConfig } from "../../spec/validation";
import { baseConfig, merge, Raw, REGION } from "../fixtures";
import { helmTemplate } from "../helm";
import { chartValues } from "./chartValues";
import type { KubeObject } from "./compare";

const CHARTS = join(PROJECT_DIR, "tests", "oracles", "cilium-charts");
const API_HOST = "api.internal.example.com";

/** The release of a line whose published chart is at hand (the one with digests). */
function chartRelease(line: CiliumLine): string {
  const release = line.releases.find((r) => r.digests);
  if (!release) throw new Error(`no chart at hand for Cilium ${line.line}`);
  return release.version;
}

function validSpec(raw: Raw, region: string): ClusterSpec {
  const { spec, errors } = validateConfig(raw, region);
  expect(errors, JSON.stringify(errors)).to.deep.equal([]);
  return spec;
}

/** The spec on its line's chart release, so images (and their digests) compare too. */
function onChartRelease(raw: Raw, region: string): ClusterSpec {
  const line = CILIUM_LINES.find((l) => l.line === validSpec(raw, region).networking.cilium.version.slice(1, 5));
  return validSpec(merge(raw, { networking: { cilium: { version: chartRelease(line!) } } }), region);
}

export interface Case {
  name: string;
  spec: ClusterSpec;
}

export function cases(): Case[] {
  const fromExamples = examples().map((example) => {
    const { raw, region } = readRawConfig(
      toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file)),
    );
    return { name: example.name, spec: onChartRelease(raw, region ?? REGION) };
  });
  const extremes = CILIUM_LINES.flatMap((line) =>
    Object.entries({
      "default IPAM": { networking: { cilium: { ipam: "", disableMasquerade: false } } },
      ENI: {},
    }).map(([mode, edit]) => {
      const raw = merge(merge(baseConfig(), edit), {
        kubernetesVersion: `1.${line.kubernetes.newest}.0`,
        networking: { cilium: { version: chartRelease(line) } },
      });
      return { name: `${mode}`, spec: validSpec(raw, REGION) };
    }),
  );
  return [...fromExamples, ...extremes];
}

export function programObjects(spec: ClusterSpec): KubeObject[] {
  const rendered = renderCiliumManifests(spec, API_HOST);
  return [...rendered.foundation, ...rendered.workloads];
}

/** The chart's render of a case; `overrides` replace top-level values (to show what the chart refuses). */
export function chartObjects(spec: ClusterSpec, overrides: Record<string, unknown> = {}): KubeObject[] {
  const chart = join(CHARTS, `cilium-${spec.networking.cilium.version.slice(1)}.tgz`);
  expect(existsSync(chart), chart).to.equal(true);
  return helmTemplate(chart, {
    namespace: "kube-system",
    kubeVersion: spec.kubernetesVersion,
    values: { ...chartValues(spec, API_HOST), ...overrides },
  });
}
