// The version-skew rules of an upgrade as one table: what the program refuses against the version the stack
// last applied (config/validation/kubernetesUpgrade.ts), and what a control-plane node of the new release does
// with the cluster it finds (bootstrap/upgrade.sh's upgrade_mode), which must agree but for etcd, which only
// the program knows of.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { linesSupporting } from "../../catalogs/ciliumVersions";
import { KUBEADM_ETCD_PINS } from "../../catalogs/kubeadmEtcd";
import { recordedMinors } from "../../catalogs/kubernetesReleases";
import { modulePath } from "../../components/nodes/bootstrapModuleFiles";
import { factsHeader } from "../../components/nodes/shellHeader";
import {
  compareVersions,
  kubeadmEtcd,
  kubeletMayRunWith,
  kubernetesUpgrade,
  nodesRollAfterControlPlane,
  noUpgradePathNotice,
  upgradeErrors,
} from "../../config/validation/kubernetesUpgrade";
import { formatWithFix } from "../../config/validation/report";

/** bootstrap/upgrade.sh's upgrade_mode, run by bash: its output and status. */
function upgradeMode(...args: string[]): { out: string; status: number | null } {
  const r = spawnSync(
    "bash",
    [
      "-c",
      `set -euo pipefail; ${factsHeader()}source ${modulePath("lib")}; source ${modulePath("upgrade")}; upgrade_mode "$@"`,
      "bash",
      ...args,
    ],
    { encoding: "utf8" },
  );
  return { out: r.stdout.trim(), status: r.status };
}

interface Row {
  from: string;
  to: string;
  kind: "none" | "patch" | "minor";
  /** The program's verdict: undefined when it allows the change, else what its one error says. */
  refused?: RegExp;
  /**
   * What the node of release `to` does with a cluster at `from`. `back`: a downgrade the program refuses, and
   * the one a node makes when an upgrade's first node failed (upgrade_cluster moves the cluster back while no
   * control plane of `from` has joined): the stack's applied version is still `to` then.
   */
  node: "none" | "upgrade" | "back" | "refuse";
  etcd?: [string, string];
  nodesWait?: boolean;
}

const TABLE: Row[] = [
  { from: "1.35.4", to: "1.35.4", kind: "none", node: "none", etcd: ["3.6.6", "3.6.6"], nodesWait: false },
  // A patch: the kubelet of 1.35.8 runs with 1.35.4's API servers, so node groups roll alongside.
  { from: "1.35.4", to: "1.35.8", kind: "patch", node: "upgrade", etcd: ["3.6.6", "3.6.6"], nodesWait: false },
  // The next minor: node groups wait for the whole control plane.
  { from: "1.34.12", to: "1.35.4", kind: "minor", node: "upgrade", etcd: ["3.6.5", "3.6.6"], nodesWait: true },
  { from: "1.34.0", to: "1.35.8", kind: "minor", node: "upgrade", etcd: ["3.6.4", "3.6.6"], nodesWait: true },
  { from: "1.32.13", to: "1.33.13", kind: "minor", node: "upgrade", etcd: ["3.5.24", "3.5.24"], nodesWait: true },
  // etcd's patch goes down within 3.5 (kubeadm 1.32.0 pins 3.5.16): members of one minor mix.
  { from: "1.31.14", to: "1.32.0", kind: "minor", node: "upgrade", etcd: ["3.5.24", "3.5.16"], nodesWait: true },
  // Down, a patch or a minor: never from what the stack applied; a node moves back only a step up from it.
  {
    from: "1.35.8",
    to: "1.35.4",
    kind: "patch",
    node: "back",
    refused: /never downgraded in place.*fix: .* '1\.35\.8'/,
  },
  { from: "1.35.4", to: "1.34.12", kind: "minor", node: "back", refused: /never downgraded in place.*'1\.35\.4'\)$/ },
  { from: "1.35.4", to: "1.33.13", kind: "minor", node: "refuse", refused: /never downgraded in place.*'1\.35\.4'\)$/ },
  // A minor skipped: the next minor's newest release first.
  {
    from: "1.34.12",
    to: "1.36.5",
    kind: "minor",
    node: "refuse",
    refused: /one minor version at a time.*'1\.35\.8'\)$/,
  },
  {
    from: "1.33.13",
    to: "1.35.4",
    kind: "minor",
    node: "refuse",
    refused: /one minor version at a time.*'1\.34\.12'\)$/,
  },
  // etcd 3.5 → 3.6 with every 1.33 release at 3.5.24, below etcd's 3.5.26: only the program knows it.
  {
    from: "1.33.13",
    to: "1.34.12",
    kind: "minor",
    node: "upgrade",
    refused:
      /moves etcd 3\.5\.24 → 3\.6\.5 .* every 3\.5 member runs 3\.5\.26 or later .* no kubeadm 1\.33 release pins one .*cannot move to 1\.34 in place.*'1\.33\.13'\)$/,
  },
  { from: "1.33.0", to: "1.34.0", kind: "minor", node: "upgrade", refused: /moves etcd 3\.5\.21 → 3\.6\.4/ },
  // etcd 3.6 → 3.7 (kubeadm 1.37): what etcd 3.7 requires is not recorded, so it is refused.
  { from: "1.36.5", to: "1.37.2", kind: "minor", node: "upgrade", refused: /etcd 3\.7 requires .* is not recorded/ },
];

describe("Kubernetes upgrades: the version-skew rules", () => {
  for (const row of TABLE) {
    it(`${row.from} → ${row.to}: ${row.refused ? "refused" : row.kind}; a ${row.to} control-plane node: ${row.node}`, () => {
      const upgrade = kubernetesUpgrade(row.from, row.to)!;
      expect(upgrade.kind).to.equal(row.kind);
      const errors = upgradeErrors(row.from, row.to);
      if (row.refused) {
        expect(errors.map((e) => [e.type, e.field])).to.deep.equal([["Invalid value", "kubernetesVersion"]]);
        expect(formatWithFix(errors[0])).to.match(row.refused);
      } else {
        expect(errors).to.deep.equal([]);
        expect([upgrade.etcd.from, upgrade.etcd.to]).to.deep.equal(row.etcd);
        expect(nodesRollAfterControlPlane(upgrade)).to.equal(row.nodesWait);
      }
      expect(upgradeMode(row.from, row.to)).to.deep.equal({ out: row.node, status: 0 });
    });
  }

  it("a stack not deployed yet has nothing to compare with: any version, no node group waits", () => {
    expect(upgradeErrors(undefined, "1.30.0")).to.deep.equal([]);
    expect(kubernetesUpgrade(undefined, "1.35.4")).to.equal(undefined);
    expect(nodesRollAfterControlPlane(undefined)).to.equal(false);
  });

  it("where a release of the minor pins what etcd requires, the error names it as the step before", () => {
    const pins = [
      { kubernetes: "1.33.0", etcd: "3.5.21" },
      { kubernetes: "1.33.20", etcd: "3.5.26" },
      { kubernetes: "1.34.0", etcd: "3.6.4" },
    ];
    const [error] = upgradeErrors("1.33.13", "1.34.12", pins);
    expect(formatWithFix(error)).to.match(
      /go to 1\.33\.20 first \(kubeadm 1\.33\.20 pins etcd 3\.5\.26\).*'1\.33\.20'\)$/,
    );
    expect(upgradeErrors("1.33.20", "1.34.12", pins)).to.deep.equal([]);
  });

  it("a new cluster at a release that can never reach the next minor in place is told so, with the release that could", () => {
    // kubeadm 1.33's newest pin is etcd 3.5.24, and etcd 3.6 needs every member at 3.5.26 first.
    expect(noUpgradePathNotice(undefined, "1.33.5")).to.match(
      /^kubernetesVersion 1\.33\.5: a cluster created at 1\.33 can never be upgraded in place to 1\.34: from 1\.33\.13, .*pulumi config set kubernetesVersion 1\.34\.\d+$/,
    );
    // A release of the minor that pins what etcd needs is a path: nothing to say.
    const pins = [...KUBEADM_ETCD_PINS, { kubernetes: "1.33.13", etcd: "3.5.26" }].sort((a, b) =>
      compareVersions(a.kubernetes, b.kubernetes),
    );
    expect(noUpgradePathNotice(undefined, "1.33.5", pins)).to.equal(undefined);
    expect(noUpgradePathNotice(undefined, "1.35.4")).to.equal(undefined);
    // A deployed cluster is held to the upgrade rules instead.
    expect(noUpgradePathNotice("1.33.5", "1.33.5")).to.equal(undefined);
  });

  it("kubelets: never newer than the API server by a minor, at most three minors older", () => {
    const table: [string, string, boolean][] = [
      ["1.35.4", "1.35.4", true],
      ["1.35.8", "1.35.4", true],
      ["1.35.4", "1.34.12", false],
      ["1.34.12", "1.35.4", true],
      ["1.32.0", "1.35.4", true],
      ["1.31.14", "1.35.4", false],
    ];
    for (const [kubelet, apiServer, ok] of table)
      expect(kubeletMayRunWith(kubelet, apiServer), `${kubelet} with ${apiServer}`).to.equal(ok);
  });

  it("knows kubeadm's etcd for every release a shipped Cilium line supports, from its minor's first release on", () => {
    for (const minor of recordedMinors().filter((m) => linesSupporting(`${m}.0`).length > 0)) {
      expect(kubeadmEtcd(`${minor}.0`), minor).to.match(/^3\.\d+\.\d+$/);
      expect(
        KUBEADM_ETCD_PINS.some((p) => p.kubernetes === `${minor}.0`),
        minor,
      ).to.equal(true);
    }
    // Within a minor kubeadm only raises its pin, which the lookup's lower bound rests on.
    for (const [i, pin] of KUBEADM_ETCD_PINS.entries()) {
      const next = KUBEADM_ETCD_PINS[i + 1];
      if (next && next.kubernetes.split(".")[1] === pin.kubernetes.split(".")[1])
        expect(compareVersions(pin.etcd, next.etcd), `${pin.kubernetes} → ${next.kubernetes}`).to.be.at.most(0);
    }
  });

  it("a node refuses what it cannot read, naming it", () => {
    for (const bad of [["v1.35.4", "1.35.4"], ["1.35", "1.35.4"], ["1.35.4"], ["1.35.4", "1.35.4", "1.35.4"]])
      expect(upgradeMode(...bad).status, bad.join(" ")).to.equal(2);
  });
});
