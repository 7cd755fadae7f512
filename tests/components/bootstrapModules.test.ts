// The bootstrap's modules one by one (kOps keeps a test per nodeup builder): each defines functions only,
// each is shellcheck clean, and the pure decisions are tables run through bash itself.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { createHash, X509Certificate } from "crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { requireDebianTool } from "../debianTools";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { BootstrapModule, bootstrapSteps, modulesFor } from "../../components/nodes/bootstrapSteps";
import { ETCD_DATA_DIR, ETCD_STATE_TAG, ETCD_STATES, TOOLS_MODULES } from "../../components/nodes/controlPlaneState";
import { renderControlPlaneTools } from "../../components/nodes/controlPlaneTools";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { BOOTSTRAP_SERVICE, systemdUnits } from "../../components/nodes/systemdUnits";
import { renderBootstrapScript, renderUserData, withoutComments } from "../../components/nodes/userData";
import { validateConfig } from "../../spec/validation";
import { baseConfig, REGION } from "../fixtures";
import { makeSecrets } from "../standins/node";

const MODULE_DIR = join(__dirname, "../../components/nodes/bootstrap");
const MODULES = readdirSync(MODULE_DIR)
  .filter((f) => f.endsWith(".sh"))
  .map((f) => f.replace(/\.sh$/, ""));
const modulePath = (m: string) => join(MODULE_DIR, `${m}.sh`);

/** Runs FUNCTION ARGS in bash with the given modules sourced; stdout, stderr and status. */
function call(modules: string[], fn: string, args: string[], input = "") {
  const sources = modules.map((m) => `source ${JSON.stringify(modulePath(m))}`).join("; ");
  const r = spawnSync("bash", ["-c", `set -euo pipefail; ${sources}; ${fn} "$@"`, "bash", ...args], {
    input,
    encoding: "utf8",
  });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

const API = { internal: "api.example.test", public: "api.example.com" };
const spec = validateConfig(baseConfig(), REGION).spec;
const groups = instanceGroups(spec);
const worker = bootstrapConfig(
  spec,
  groups.find((g) => g.role === "node")!,
  API,
);
const controlPlane = bootstrapConfig(
  spec,
  groups.find((g) => g.role === "control-plane")!,
  API,
);

describe("bootstrap modules", () => {
  it("are the files the steps name, and define functions only: sourcing one runs nothing", () => {
    const named = new Set<string>([
      ...modulesFor(bootstrapSteps(worker)),
      ...modulesFor(bootstrapSteps(controlPlane)),
      ...TOOLS_MODULES,
    ]);
    expect([...named].sort()).to.deep.equal([...MODULES].sort());
    for (const m of MODULES) {
      // With PATH empty no command can run; `set -u` fails on any variable read at source time.
      const script = `before=$(compgen -v | sort); set -u; source ${JSON.stringify(modulePath(m))}; comm -13 <(echo "$before") <(compgen -v | sort) | grep -vx -e BASH_REMATCH -e PIPESTATUS -e _ -e before || true`;
      const r = spawnSync("/bin/bash", ["-c", script], {
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      expect(r.status, `${m}: ${r.stderr}`).to.equal(0);
      expect(r.stderr, m).to.equal("");
      expect(r.stdout.trim(), `${m} sets variables when sourced`).to.equal("");
      const definitions = [...readFileSync(modulePath(m), "utf8").matchAll(/^(\w+)\(\) \{/gm)].length;
      expect(definitions, `${m} defines functions`).to.be.greaterThan(0);
    }
  });

  it("are each shellcheck clean (their variables come from the header: SC2154, SC2153)", function () {
    requireDebianTool(this, "shellcheck", "shellcheck");
    const result = spawnSync(
      "shellcheck",
      ["--shell=bash", "--severity=style", "--exclude=SC2154,SC2153", ...MODULES.map(modulePath)],
      { encoding: "utf8" },
    );
    expect(result.error).to.equal(undefined);
    expect(result.stdout + result.stderr).to.equal("");
  });

  it("etcd_volume_holds_member: a volume tagged member, or untagged and attached; never removed or joining", () => {
    // EC2 state, state tag ("None": no tag), holds a member's data
    const table: [string, string, string][] = [
      ["available", "member", "yes"],
      ["in-use", "member", "yes"],
      ["available", "removed", "no"],
      ["in-use", "removed", "no"],
      ["available", "joining", "no"],
      ["in-use", "joining", "no"],
      ["in-use", "None", "yes"],
      ["available", "None", "no"],
      ["creating", "None", "no"],
    ];
    for (const [state, tag, holds] of table) {
      const r = call(["lib", "cluster-state"], "etcd_volume_holds_member", [state, tag]);
      expect([r.status, r.out], `${state} ${tag}`).to.deep.equal([0, `${holds}\n`]);
    }
    // The tag and values the nodes set are the ones the program ignores and IAM allows.
    expect(call(["lib", "cluster-state"], "etcd_state_tag", []).out).to.equal(`${ETCD_STATE_TAG}\n`);
    expect([...new Set(table.map(([, tag]) => tag).filter((t) => t !== "None"))].sort()).to.deep.equal(
      [...ETCD_STATES].sort(),
    );
  });

  it("join_mode: none once joined, reset after a half-done join, init only while no cluster was ever created", () => {
    // role, in the init zone, API answers, kubeadm state, init record exists, etcd data on the node, another
    // member volume may hold a member's data, snapshot
    type Row = [string, string, string, string, string, string, string, string, string];
    const table: Row[] = [
      ["control-plane", "yes", "no", "fresh", "no", "no", "no", "no", "init"],
      ["control-plane", "yes", "no", "fresh", "no", "no", "no", "yes", "init"],
      ["control-plane", "yes", "yes", "fresh", "no", "no", "no", "no", "join"],
      ["control-plane", "no", "no", "fresh", "no", "no", "no", "no", "join"],
      // The record exists: never init, whatever the probe of the API says.
      ["control-plane", "yes", "no", "fresh", "yes", "no", "no", "no", "join"],
      ["control-plane", "yes", "no", "fresh", "yes", "no", "no", "yes", "restore"],
      // Another member's data survives on its volume: wait for that member (join), never restore.
      ["control-plane", "yes", "no", "fresh", "yes", "no", "yes", "yes", "join"],
      ["control-plane", "yes", "no", "fresh", "yes", "no", "yes", "no", "join"],
      ["control-plane", "no", "no", "fresh", "yes", "no", "no", "yes", "join"],
      ["control-plane", "yes", "yes", "fresh", "yes", "no", "no", "yes", "join"],
      ["control-plane", "no", "yes", "fresh", "yes", "no", "no", "no", "join"],
      // A member's data on the node: it comes back as that member.
      ["control-plane", "yes", "no", "fresh", "yes", "yes", "no", "yes", "rejoin"],
      ["control-plane", "yes", "no", "fresh", "yes", "yes", "yes", "no", "rejoin"],
      ["control-plane", "no", "yes", "fresh", "yes", "yes", "no", "no", "rejoin"],
      ["node", "yes", "no", "fresh", "no", "no", "no", "no", "join"],
      ["node", "no", "no", "fresh", "no", "no", "no", "no", "join"],
      ["node", "no", "yes", "fresh", "no", "no", "no", "no", "join"],
      // A half-done join is undone first, whatever else holds; a joined node does nothing.
      ["control-plane", "yes", "no", "partial", "no", "no", "no", "no", "reset"],
      ["control-plane", "yes", "no", "partial", "yes", "yes", "no", "no", "reset"],
      ["node", "no", "yes", "partial", "no", "no", "no", "no", "reset"],
      ["control-plane", "yes", "no", "joined", "no", "no", "no", "no", "none"],
      ["control-plane", "no", "yes", "joined", "yes", "yes", "yes", "yes", "none"],
      ["node", "no", "yes", "joined", "no", "no", "no", "no", "none"],
    ];
    for (const [role, zone, api, state, record, data, elsewhere, snapshot, mode] of table) {
      const args = [role, zone, api, state, record, data, elsewhere, snapshot];
      const r = call(["lib", "kubeadm"], "join_mode", args);
      expect([r.status, r.out], args.join(" ")).to.deep.equal([0, `${mode}\n`]);
    }
    // Every input combination: init only without the record, and only on a fresh node; restore only in the
    // init zone, with the record, no API, no member's data here or on another volume, and a snapshot.
    const yn = ["yes", "no"];
    const combinations = (n: number): string[][] =>
      n === 0 ? [[]] : combinations(n - 1).flatMap((c) => yn.map((v) => [...c, v]));
    for (const state of ["fresh", "partial", "joined"])
      for (const [zone, api, record, data, elsewhere, snapshot] of combinations(6)) {
        const args = ["control-plane", zone, api, state, record, data, elsewhere, snapshot];
        const r = call(["lib", "kubeadm"], "join_mode", args);
        const at = args.join(" ");
        expect(r.status, at).to.equal(0);
        if (record === "yes" || state !== "fresh") expect(r.out, at).not.to.equal("init\n");
        const restore =
          state === "fresh" &&
          zone === "yes" &&
          api === "no" &&
          record === "yes" &&
          data === "no" &&
          elsewhere === "no" &&
          snapshot === "yes";
        expect(r.out === "restore\n", at).to.equal(restore);
      }
    for (const bad of [
      ["master", "yes", "no", "fresh", "no", "no", "no", "no"],
      ["control-plane", "true", "no", "fresh", "no", "no", "no", "no"],
      ["node", "no", "no", "half", "no", "no", "no", "no"],
      ["control-plane", "yes", "no", "fresh", "no", "maybe", "no", "no"],
      ["control-plane", "yes", "no", "fresh", "no", "no", "maybe", "no"],
      ["control-plane", "yes", "no", "fresh", "no", "no", "no"],
      ["node", "no", "no", "fresh"],
    ]) {
      const r = call(["lib", "kubeadm"], "join_mode", bad);
      expect(r.status, bad.join(" ")).to.equal(2);
      expect(r.out).to.equal("");
    }
  });

  it("kubeadm_state: what kubeadm left decides; the CA a control plane fetches and a member's etcd data do not", () => {
    const root = mkdtempSync(join(tmpdir(), "state-"));
    const state = (role: string) =>
      spawnSync("bash", ["-c", `source ${JSON.stringify(modulePath("kubeadm"))}; kubeadm_state ${role}`], {
        encoding: "utf8",
        env: { ...process.env, BOOTSTRAP_ROOT: root },
      }).stdout.trim();
    const put = (path: string) => {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), "x");
    };
    expect([state("node"), state("control-plane")]).to.deep.equal(["fresh", "fresh"]);
    put("etc/kubernetes/pki/ca.crt");
    expect([state("node"), state("control-plane")]).to.deep.equal(["partial", "fresh"]);
    // The member's volume, mounted at /var/lib/etcd, holds a file system's lost+found: not kubeadm's.
    mkdirSync(join(root, "var/lib/etcd/lost+found"), { recursive: true });
    expect(state("control-plane")).to.equal("fresh");
    // A member's data (it rejoins with it) is not a half-done join; anything else in the data directory is.
    put("var/lib/etcd/data/member/snap/db");
    expect(state("control-plane")).to.equal("fresh");
    rmSync(join(root, "var/lib/etcd/data/member"), { recursive: true });
    put("var/lib/etcd/data/leftover");
    expect(state("control-plane")).to.equal("partial");
    rmSync(join(root, "var/lib/etcd/data"), { recursive: true });
    put("etc/kubernetes/manifests/etcd.yaml");
    expect(state("control-plane")).to.equal("partial");
    put("etc/kubernetes/kubelet.conf");
    // The marker of every step done is not kubeadm's: only kubeadm's own marker makes a join complete.
    put("var/lib/cilium-cluster/joined");
    expect([state("node"), state("control-plane")]).to.deep.equal(["partial", "partial"]);
    put("var/lib/cilium-cluster/kubeadm-joined");
    expect([state("node"), state("control-plane")]).to.deep.equal(["joined", "joined"]);
    // Without kubelet.conf the node is not joined, whatever the marker says.
    rmSync(join(root, "etc/kubernetes/kubelet.conf"));
    rmSync(join(root, "etc/kubernetes/manifests"), { recursive: true });
    rmSync(join(root, "etc/kubernetes/pki"), { recursive: true });
    expect([state("node"), state("control-plane")]).to.deep.equal(["fresh", "fresh"]);
  });

  it("kubeadm_reset undoes a half-done join without kubeadm reset, keeping a member's etcd data", () => {
    const bin = mkdtempSync(join(tmpdir(), "bin-"));
    for (const tool of ["systemctl", "kubeadm"]) {
      writeFileSync(join(bin, tool), `#!/bin/sh\necho "${tool} $*" >>"${bin}/calls"\n`);
      chmodSync(join(bin, tool), 0o755);
    }
    const reset = (role: string, files: string[]) => {
      const root = mkdtempSync(join(tmpdir(), "reset-"));
      for (const f of files) {
        mkdirSync(join(root, f, ".."), { recursive: true });
        writeFileSync(join(root, f), "x");
      }
      const r = spawnSync(
        "bash",
        [
          "-c",
          `source ${JSON.stringify(modulePath("lib"))}; source ${JSON.stringify(modulePath("kubeadm"))}; kubeadm_reset`,
        ],
        {
          encoding: "utf8",
          env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BOOTSTRAP_ROOT: root, ROLE: role },
        },
      );
      const state = spawnSync(
        "bash",
        ["-c", `source ${JSON.stringify(modulePath("kubeadm"))}; kubeadm_state ${role}`],
        {
          encoding: "utf8",
          env: { ...process.env, BOOTSTRAP_ROOT: root },
        },
      ).stdout.trim();
      return { status: r.status, root, state };
    };
    const left = [
      "etc/kubernetes/manifests/etcd.yaml",
      "etc/kubernetes/admin.conf",
      "etc/kubernetes/bootstrap-kubelet.conf",
      "var/lib/kubelet/config.yaml",
      "etc/kubernetes/pki/ca.key",
    ];
    const member = reset("control-plane", [...left, "var/lib/etcd/data/member/snap/db"]);
    // The run fails, so systemd starts the bootstrap again from its first step; the node is fresh then.
    expect([member.status, member.state]).to.deep.equal([1, "fresh"]);
    expect(readFileSync(join(member.root, "var/lib/etcd/data/member/snap/db"), "utf8")).to.equal("x");
    expect(readFileSync(join(member.root, "etc/kubernetes/pki/ca.key"), "utf8")).to.equal("x");
    const leftover = reset("control-plane", [...left, "var/lib/etcd/data/wal/0.wal"]);
    expect([leftover.status, leftover.state]).to.deep.equal([1, "fresh"]);
    expect(readdirSync(join(leftover.root, "var/lib/etcd"))).to.deep.equal([]);
    const worker = reset("node", ["etc/kubernetes/pki/ca.crt", "etc/kubernetes/bootstrap-kubelet.conf"]);
    expect([worker.status, worker.state]).to.deep.equal([1, "fresh"]);
    expect(readFileSync(join(bin, "calls"), "utf8")).not.to.contain("kubeadm");
  });

  it("kubeadm.sh's etcd data directory is the one kubeadm's configuration names", () => {
    const r = spawnSync("bash", ["-c", `source ${JSON.stringify(modulePath("kubeadm"))}; etcd_data_dir`], {
      encoding: "utf8",
    });
    expect(r.stdout.trim()).to.equal(ETCD_DATA_DIR);
  });

  it("retry runs a program until it succeeds, at most BOOTSTRAP_TRIES times, and passes on only its output", () => {
    const dir = mkdtempSync(join(tmpdir(), "retry-"));
    const flaky = join(dir, "flaky");
    writeFileSync(
      flaky,
      `#!/bin/bash\nn=$(cat ${dir}/n 2>/dev/null || echo 0); echo $((n+1)) >${dir}/n\necho "out $n"\n[ "$n" -ge "$1" ]\n`,
    );
    chmodSync(flaky, 0o755);
    const env = { ...process.env, BOOTSTRAP_RETRY_DELAY: "0", BOOTSTRAP_TRIES: "4" };
    const retry = (failures: string) => {
      rmSync(join(dir, "n"), { force: true });
      return spawnSync(
        "bash",
        ["-c", `set -euo pipefail; source ${JSON.stringify(modulePath("lib"))}; retry "$@"`, "bash", flaky, failures],
        { encoding: "utf8", env },
      );
    };
    const ok = retry("3");
    expect([ok.status, ok.stdout]).to.deep.equal([0, "out 3\n"]);
    expect(ok.stderr.match(/failed; again in 0s/g)).to.have.length(3);
    const gaveUp = retry("4");
    expect(gaveUp.status).to.equal(1);
    expect(gaveUp.stderr).to.contain("gave up after 4 tries");
  });

  it("fill_placeholders fills every @NAME@ given and refuses to leave one", () => {
    const text = 'token: "@BOOTSTRAP_TOKEN@"\nhash: sha256:@CA_CERT_HASH@\n';
    const filled = call(["lib", "kubeadm"], "fill_placeholders", ["BOOTSTRAP_TOKEN=a&b.c", "CA_CERT_HASH=00ff"], text);
    expect([filled.status, filled.out]).to.deep.equal([0, 'token: "a&b.c"\nhash: sha256:00ff\n']);
    const missing = call(["lib", "kubeadm"], "fill_placeholders", ["BOOTSTRAP_TOKEN=x"], text);
    expect(missing.status).to.equal(1);
    expect(missing.out).to.equal("");
    expect(missing.err).to.contain("@CA_CERT_HASH@");
  });

  it("wait_for_api gives up, with kubeadm's own timeouts, before systemd's TimeoutStartSec stops the run", () => {
    // A /readyz that never answers: curl takes its whole --max-time; sleep and curl add up the seconds.
    const bin = mkdtempSync(join(tmpdir(), "wait-"));
    const clock = join(bin, "seconds");
    writeFileSync(clock, "0");
    const spend = (seconds: string) => `echo $(( $(cat ${clock}) + ${seconds} )) >${clock}`;
    writeFileSync(join(bin, "sleep"), `#!/bin/bash\n${spend("$1")}\n`, { mode: 0o755 });
    writeFileSync(
      join(bin, "curl"),
      `#!/bin/bash\nwhile [ $# -gt 0 ]; do [ "$1" = --max-time ] && t=$2; shift; done\n${spend("$t")}\nexit 28\n`,
      { mode: 0o755 },
    );
    const result = spawnSync(
      "bash",
      [
        "-c",
        `source ${modulePath("lib")}; source ${modulePath("kubeadm")}; API_ENDPOINT=api API_PORT=443 wait_for_api`,
      ],
      { encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
    );
    expect(result.status, result.stderr).to.equal(1);
    expect(result.stderr).to.contain("did not answer");
    const waited = Number(readFileSync(clock, "utf8"));
    // kubeadm join's discovery (5 minutes) and TLS bootstrap (5 minutes) timeouts.
    const kubeadmSeconds = 600;
    const unit = systemdUnits(worker)[BOOTSTRAP_SERVICE];
    const timeoutSeconds = Number(/^TimeoutStartSec=(\d+)min$/m.exec(unit)![1]) * 60;
    expect(waited).to.be.at.most(15 * 60);
    expect(waited + kubeadmSeconds).to.be.lessThan(timeoutSeconds);
  });

  it("max_pods follows kOps's rule less Cilium's own addresses, plus the host-network pods, at most 110", () => {
    // [ENIs, IPv4 per ENI, reserved by Cilium, host-network pods, max pods]
    const table: [number, number, number, number, number][] = [
      [3, 6, 0, 2, 17], // t3.medium, without reserved addresses, with kube-proxy: kOps's figure
      [3, 6, 2, 2, 15], // t3.medium in Cilium ENI mode: its router and health endpoint take two
      [3, 6, 2, 1, 14], // ... without kube-proxy: only the agent is on the host network
      [3, 12, 2, 2, 33], // t3.large
      [3, 12, 2, 1, 32],
      [4, 15, 2, 2, 56], // m5.xlarge
      [4, 15, 2, 1, 55],
      [8, 30, 2, 1, 110], // m5.4xlarge: 231, capped
    ];
    for (const [enis, ips, reserved, hostNetwork, pods] of table) {
      const r = call(["kubelet"], "max_pods", [String(enis), String(ips), String(reserved), String(hostNetwork)]);
      expect(r.out, `${enis}x${ips}-${reserved}+${hostNetwork}`).to.equal(`${pods}\n`);
    }
  });

  it("ca_cert_hash is kubeadm's discovery hash of the certificate on standard input", function () {
    requireDebianTool(this, "openssl", "openssl");
    const pem = readFileSync(join(makeSecrets().dir, "ca.crt"), "utf8");
    // kubeadm's pubkeypin.Hash: SHA-256 of the certificate's DER SubjectPublicKeyInfo, here from Node's X.509.
    const spki = new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" });
    const expected = createHash("sha256").update(spki).digest("hex");
    expect(call(["pki"], "ca_cert_hash", [], pem).out).to.equal(`${expected}\n`);
    expect(call(["pki"], "ca_cert_hash", [], "junk").status).not.to.equal(0);
  });
});

describe("bootstrap steps and assembly per role", () => {
  it("lists the steps of each role", () => {
    const names = (c: typeof worker) => bootstrapSteps(c).map((s) => s.name);
    expect(names(worker)).to.deep.equal([
      "node-role",
      "kernel",
      "network",
      "packages",
      "containerd",
      "kubelet",
      "join",
      "launch-hook",
    ]);
    expect(names(controlPlane)).to.deep.equal([
      "node-role",
      "kernel",
      "network",
      "packages",
      "containerd",
      "control-plane-pki",
      "control-plane-tools",
      "kubelet",
      "etcd-volume",
      "join",
      "etcd",
      "etcd-healthy",
      "launch-hook",
    ]);
  });

  it("a worker's user data carries no control-plane code; a control-plane node's carries what it runs", () => {
    const text = renderUserData(worker);
    const controlPlaneOnly = [
      "kubeadm_init",
      "fetch_control_plane_pki",
      "settle_etcd",
      "etcd_await_ready",
      "InitConfiguration",
    ];
    for (const absent of [...controlPlaneOnly, "ca.key"]) {
      expect(text, absent).not.to.contain(absent);
    }
    expect(modulesFor(bootstrapSteps(worker))).not.to.include.members(["control-plane", "etcd"] as BootstrapModule[]);
    const cp = renderUserData(controlPlane);
    for (const present of [
      "kubeadm_init()",
      "fetch_control_plane_pki()",
      "kind: InitConfiguration",
      "prepare_etcd()",
      "settle_etcd()",
      "fetch_control_plane_tools()",
    ])
      expect(cp, present).to.contain(present);
  });

  it("every step's function is defined in the modules a role's script carries, and run_steps runs them in order", () => {
    for (const config of [worker, controlPlane]) {
      const text = renderUserData(config);
      const steps = bootstrapSteps(config);
      const defines = (script: string, fn: string) => new RegExp(`^${fn}\\(\\) \\{`, "m").test(script);
      const fetched = steps.findIndex((s) => s.run === "fetch_control_plane_tools");
      for (const s of steps.filter((s) => !defines(text, s.run))) {
        // Not in the user data: a function of the tools bundle, run after the step that fetches and sources it.
        expect(s.module, s.name).to.equal("control-plane-tools");
        expect(defines(renderControlPlaneTools(), s.run), s.run).to.equal(true);
        expect(fetched, s.name).to.be.within(0, steps.indexOf(s) - 1);
      }
      const script = renderBootstrapScript(config);
      expect(script, "the script ends by running its steps").to.match(/\n\}\n\nrun_steps\n$/);
      const main = /^run_steps\(\) \{\n([\s\S]*?)\n\}\n/m.exec(script);
      expect(main, "run_steps").not.to.equal(null);
      expect(
        main![1]
          .split("\n")
          .filter((l) => l.startsWith("  step "))
          .map((l) => l.trim()),
      ).to.deep.equal(steps.map((s) => `step ${s.name} ${s.run}`));
    }
  });

  it("drops comment lines outside here-documents only", () => {
    const source =
      "# about f\nf() {\n  # inside\n  cat <<'EOF'\n# kept: data\nEOF\n  echo hi # trailing\n}\n# shellcheck disable=SC2034\n";
    expect(withoutComments(source)).to.equal(
      "f() {\n  cat <<'EOF'\n# kept: data\nEOF\n  echo hi # trailing\n}\n# shellcheck disable=SC2034\n",
    );
  });
});
