// The bootstrap's modules one by one (kOps keeps a test per nodeup builder): each defines functions only,
// each is shellcheck clean, and the pure decisions are tables run through bash itself.
import { expect } from "chai";
import { execFileSync, spawnSync } from "child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { BootstrapModule, bootstrapSteps, modulesFor } from "../../components/nodes/bootstrapSteps";
import { TOOLS_MODULES } from "../../components/nodes/controlPlaneState";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { renderUserData, withoutComments } from "../../components/nodes/userData";
import { validateConfig } from "../../spec/validation";
import { baseConfig, REGION } from "../fixtures";

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

  it("are each shellcheck clean (their variables come from the header: SC2154, SC2153)", () => {
    const result = spawnSync(
      "shellcheck",
      ["--shell=bash", "--severity=style", "--exclude=SC2154,SC2153", ...MODULES.map(modulePath)],
      { encoding: "utf8" },
    );
    expect(result.error, "shellcheck must be installed (Debian package shellcheck)").to.equal(undefined);
    expect(result.stdout + result.stderr).to.equal("");
  });

  it("join_mode: init only while no cluster was ever created; afterwards rejoin, join or restore", () => {
    // role, in the init zone, API answers, init record exists, etcd data on the node, snapshot exists
    const table: [string, string, string, string, string, string, string][] = [
      ["control-plane", "yes", "no", "no", "no", "no", "init"],
      ["control-plane", "yes", "no", "no", "no", "yes", "init"],
      ["control-plane", "yes", "yes", "no", "no", "no", "join"],
      ["control-plane", "no", "no", "no", "no", "no", "join"],
      // The record exists: never init, whatever the probe of the API says.
      ["control-plane", "yes", "no", "yes", "no", "no", "join"],
      ["control-plane", "yes", "no", "yes", "no", "yes", "restore"],
      ["control-plane", "no", "no", "yes", "no", "yes", "join"],
      ["control-plane", "yes", "yes", "yes", "no", "yes", "join"],
      ["control-plane", "no", "yes", "yes", "no", "no", "join"],
      // A member's data on the node: it comes back as that member.
      ["control-plane", "yes", "no", "yes", "yes", "yes", "rejoin"],
      ["control-plane", "no", "yes", "yes", "yes", "no", "rejoin"],
      ["node", "yes", "no", "no", "no", "no", "join"],
      ["node", "no", "yes", "yes", "yes", "yes", "join"],
    ];
    for (const [role, zone, api, record, data, snapshot, mode] of table) {
      const args = [role, zone, api, record, data, snapshot];
      const r = call(["lib", "kubeadm"], "join_mode", args);
      expect([r.status, r.out], args.join(" ")).to.deep.equal([0, `${mode}\n`]);
    }
    // Every input combination: init only without the record.
    const yn = ["yes", "no"];
    for (const [zone, api, record, data, snapshot] of yn.flatMap((a) =>
      yn.flatMap((b) => yn.flatMap((c) => yn.flatMap((d) => yn.map((e) => [a, b, c, d, e])))),
    )) {
      const r = call(["lib", "kubeadm"], "join_mode", ["control-plane", zone, api, record, data, snapshot]);
      if (record === "yes") expect(r.out, `${zone} ${api} ${data} ${snapshot}`).not.to.equal("init\n");
    }
    for (const bad of [
      ["master", "yes", "no", "no", "no", "no"],
      ["control-plane", "true", "no", "no", "no", "no"],
      ["control-plane", "yes", "no"],
      ["node", "no"],
    ]) {
      const r = call(["lib", "kubeadm"], "join_mode", bad);
      expect(r.status, bad.join(" ")).to.equal(2);
      expect(r.out).to.equal("");
    }
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

  it("max_pods follows kOps's rule, at most 110", () => {
    const table: [number, number, number][] = [
      [3, 6, 17], // t3.medium
      [3, 12, 35], // t3.large
      [4, 15, 58], // m5.xlarge
      [8, 30, 110], // m5.4xlarge: 234, capped
    ];
    for (const [enis, ips, pods] of table) {
      expect(call(["kubelet"], "max_pods", [String(enis), String(ips)]).out, `${enis}x${ips}`).to.equal(`${pods}\n`);
    }
  });

  it("ca_cert_hash is kubeadm's discovery hash of the certificate on standard input", () => {
    const dir = mkdtempSync(join(tmpdir(), "ca-"));
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=k"].concat([
        "-keyout",
        join(dir, "ca.key"),
        "-out",
        join(dir, "ca.crt"),
      ]),
      { stdio: "ignore" },
    );
    // kubeadm: SHA-256 of the DER SubjectPublicKeyInfo (pubkeypin.Hash).
    const der = execFileSync("openssl", ["x509", "-in", join(dir, "ca.crt"), "-pubkey", "-noout"]);
    const spki = execFileSync("openssl", ["pkey", "-pubin", "-outform", "der"], { input: der });
    const expected = require("crypto").createHash("sha256").update(spki).digest("hex"); // eslint-disable-line @typescript-eslint/no-require-imports
    const r = call(["pki"], "ca_cert_hash", [], readFileSync(join(dir, "ca.crt"), "utf8"));
    expect(r.out).to.equal(`${expected}\n`);
    writeFileSync(join(dir, "not-a-cert"), "junk");
    expect(call(["pki"], "ca_cert_hash", [], "junk").status).not.to.equal(0);
  });
});

describe("bootstrap steps and assembly per role", () => {
  it("lists the steps of each role", () => {
    const names = (c: typeof worker) => bootstrapSteps(c).map((s) => s.name);
    expect(names(worker)).to.deep.equal([
      "kernel",
      "network",
      "packages",
      "containerd",
      "cluster-ca",
      "kubelet",
      "join",
    ]);
    expect(names(controlPlane)).to.deep.equal([
      "kernel",
      "network",
      "packages",
      "containerd",
      "cluster-ca",
      "control-plane-pki",
      "control-plane-tools",
      "kubelet",
      "etcd-volume",
      "join",
      "etcd",
    ]);
  });

  it("a worker's user data carries no control-plane code; a control-plane node's carries what it runs", () => {
    const text = renderUserData(worker);
    for (const absent of ["kubeadm_init", "fetch_control_plane_pki", "InitConfiguration", "etcd", "ca.key"]) {
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

  it("every step's function is defined in the modules a role's user data carries, and main runs them in order", () => {
    for (const config of [worker, controlPlane]) {
      const text = renderUserData(config);
      const steps = bootstrapSteps(config);
      for (const s of steps) expect(text, s.run).to.match(new RegExp(`^${s.run}\\(\\) \\{`, "m"));
      const main = /^main\(\) \{\n([\s\S]*?)\n\}\n\nmain "\$@"\n$/m.exec(text);
      expect(main, "user data ends with main").not.to.equal(null);
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
