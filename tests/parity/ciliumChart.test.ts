/**
 * Parity with Cilium's official chart: for every example stack and both IPAM extremes (default and ENI)
 * on every shipped line, the chart of that line is rendered by Helm with the same choices and compared
 * with what the program renders. A render the chart refuses (its validate.yaml) fails; so does any
 * difference not on the reviewed list, and any list entry no case needs.
 */

import { expect } from "chai";
import { cases, chartObjects, programObjects } from "./cases";
import type { ClusterSpec } from "../../config/types";
import { compareObjects, Difference, KubeObject } from "./compare";
import { explain, INTENDED_DIFFERENCES } from "../../components/cilium/chartDifferences";
import type { IntendedDifference } from "../../components/k8s/chartDifference";

function withPodSpec(o: KubeObject, podSpec: object): KubeObject {
  const spec = o.spec as { template: object };
  return { ...o, spec: { ...spec, template: { ...spec.template, spec: podSpec } } };
}

function withNodeSelector(o: KubeObject, nodeSelector: Record<string, string>): KubeObject {
  const podSpec = (o.spec as { template: { spec: object } }).template.spec;
  return withPodSpec(o, { ...podSpec, nodeSelector });
}

const show = (d: Difference) => `${d.path}: chart ${d.chart ?? "(absent)"}, program ${d.program ?? "(absent)"}`;

describe("Cilium objects match Cilium's official chart", function () {
  this.timeout(180000);
  const used = new Set<IntendedDifference>();

  for (const c of cases()) {
    it(`${c.name}: Cilium ${c.spec.networking.cilium.version}, ipam "${c.spec.networking.cilium.ipam}"`, () => {
      const { differences, compared } = compareObjects(chartObjects(c.spec), programObjects(c.spec));
      expect(compared).to.be.greaterThan(300);
      const unexplained = differences.filter((d) => {
        const entry = explain(d.path);
        if (entry) used.add(entry);
        return !entry;
      });
      expect(unexplained.map(show)).to.deep.equal([]);
    });
  }

  it("needs every entry of the intended-differences list", () => {
    expect(INTENDED_DIFFERENCES.filter((d) => !used.has(d)).map((d) => d.path)).to.deep.equal([]);
  });

  it("fails on a difference nobody listed", () => {
    const spec = cases()[0].spec;
    const tampered = programObjects(spec).map((o) =>
      o.kind === "ConfigMap" ? { ...o, data: { ...(o.data as object), "enable-l7-proxy": "false" } } : o,
    );
    const unexplained = compareObjects(chartObjects(spec), tampered).differences.filter((d) => !explain(d.path));
    expect(unexplained.map((d) => d.path)).to.deep.equal(["ConfigMap/cilium-config data.enable-l7-proxy"]);
  });

  it("fails on a duplicate name rather than comparing only the last of them", () => {
    const spec = cases()[0].spec;
    const program = programObjects(spec);
    const chart = chartObjects(spec);
    const withDuplicateEnv = program.map((o) => {
      if (o.kind !== "DaemonSet") return o;
      const podSpec = (o.spec as { template: { spec: { containers: { name: string; env: unknown[] }[] } } }).template
        .spec;
      const containers = podSpec.containers.map((c) =>
        c.name === "cilium-agent" ? { ...c, env: [...c.env, { name: "GOMEMLIMIT", value: "1" }] } : c,
      );
      return withPodSpec(o, { ...podSpec, containers });
    });
    expect(() => compareObjects(chart, withDuplicateEnv)).to.throw(
      /duplicate list item .*containers\[cilium-agent\]\.env\[GOMEMLIMIT\]/,
    );
    expect(() => compareObjects(chart, [...program, program[0]])).to.throw(/duplicate object/);
  });

  it("fails on an operator placed anywhere but where kOps places it", () => {
    const selector = "Deployment/cilium-operator spec.template.spec.nodeSelector";
    const unexplainedPaths = (spec: ClusterSpec, nodeSelector: Record<string, string>) => {
      const moved = programObjects(spec).map((o) => (o.kind === "Deployment" ? withNodeSelector(o, nodeSelector) : o));
      return compareObjects(chartObjects(spec), moved)
        .differences.filter((d) => !explain(d.path))
        .map((d) => d.path);
    };
    const eni = cases().find((c) => c.spec.networking.cilium.ipam === "eni")!.spec;
    const other = cases().find((c) => c.spec.networking.cilium.ipam === "")!.spec;
    // ENI mode off the control plane (no ENI permissions there), and another mode pinned to it.
    expect(unexplainedPaths(eni, { "kubernetes.io/os": "linux" })).to.deep.equal([
      `${selector}.node-role.kubernetes.io/control-plane`,
    ]);
    expect(
      unexplainedPaths(other, { "kubernetes.io/os": "linux", "node-role.kubernetes.io/control-plane": "" }),
    ).to.deep.equal([`${selector}.node-role.kubernetes.io/control-plane`]);
  });

  it("renders only what the chart's validate.yaml accepts: the cluster's DNS name is refused as Cilium's", () => {
    const spec = cases()[0].spec;
    expect(() => chartObjects(spec, { cluster: { name: spec.clusterName } })).to.throw(/cluster name is invalid/);
  });
});
