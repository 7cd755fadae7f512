/**
 * The parity test's cases: every example stack on its line's chart release, and a matrix of choices on
 * every shipped line (see `matrix`); and both renders of a case, the program's and the chart's.
 */ import { expect } from "chai";
import { existsSync } from "fs";
import { join } from "path";
import { renderCiliumManifests } from "../../components/cilium/ciliumManifests";
import { CILIUM_FEATURES } from "../../components/cilium/features/ciliumFeatures";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { loadStackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { CILIUM_LINES, CiliumLine } from "../../catalogs/ciliumVersions";
import { readRawConfig } from "../../config/read";
import type { ClusterSpec } from "../../config/types";
import { validateConfig } from "../../components/clusterConfigValidation";
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
  return [...fromExamples, ...matrix()];
}

/** Each IPAM mode with the routing it allows: a tunnel (VXLAN or Geneve) for the default, native for ENI. */
const IPAM_MODES: Record<string, { edit: Raw; routings: Record<string, Raw> }> = {
  "default IPAM": {
    edit: { networking: { cilium: { ipam: "", disableMasquerade: false } } },
    routings: {
      "VXLAN tunnel": { networking: { cilium: { tunnel: "vxlan" } } },
      "Geneve tunnel": { networking: { cilium: { tunnel: "geneve" } } },
    },
  },
  ENI: {
    edit: { networking: { cilium: { ipam: "eni", disableMasquerade: true } } },
    routings: { "native routing": { networking: { cilium: { tunnel: "disabled" } } } },
  },
};

const KUBE_PROXY: Record<string, Raw> = {
  "kube-proxy": { kubeProxy: { enabled: true }, networking: { cilium: { enableNodePort: false } } },
  "kube-proxy replacement": { kubeProxy: { enabled: false }, networking: { cilium: { enableNodePort: true } } },
};

/**
 * Every shipped line × IPAM (default, ENI) × kube-proxy replacement (off, on) × the routing the IPAM mode
 * allows, with one control-plane node; and with 3 control-plane nodes (two operator replicas) for each line,
 * IPAM mode and kube-proxy choice, where the operator's replicas and placement change. Then, on every line,
 * each Cilium feature's cases (components/cilium/features/).
 */
function matrix(): Case[] {
  const out: Case[] = [];
  for (const line of CILIUM_LINES) {
    const onLine = {
      kubernetesVersion: `1.${line.kubernetes.newest}.0`,
      networking: { cilium: { version: chartRelease(line) } },
    };
    for (const [ipam, { edit, routings }] of Object.entries(IPAM_MODES))
      for (const [proxy, proxyEdit] of Object.entries(KUBE_PROXY)) {
        const add = (name: string, ...edits: Raw[]) => {
          const raw = [edit, onLine, proxyEdit, ...edits].reduce((acc, e) => merge(acc, e), baseConfig());
          out.push({ name: `${ipam}, ${proxy}, ${name}`, spec: validSpec(raw, REGION) });
        };
        for (const [routing, routingEdit] of Object.entries(routings))
          add(`${routing}, 1 control-plane node`, routingEdit);
        const [routing, routingEdit] = Object.entries(routings)[0];
        add(`${routing}, 3 control-plane nodes`, routingEdit, { controlPlane: { count: 3 } });
      }
    for (const feature of CILIUM_FEATURES)
      for (const [name, edit] of Object.entries(feature.cases.on)) {
        const raw = merge(merge(baseConfig(), onLine), edit);
        out.push({ name: `Cilium ${line.line}, ${name}`, spec: validSpec(raw, REGION) });
      }
  }
  return out;
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
    release: "cilium",
    namespace: "kube-system",
    kubeVersion: spec.kubernetesVersion,
    values: { ...chartValues(spec, API_HOST), ...overrides },
  });
}
