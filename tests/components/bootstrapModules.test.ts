// The bootstrap's modules one by one (kOps keeps a test per nodeup builder): each defines functions only,
// each is shellcheck clean, and the pure decisions are tables run through bash itself.
import { expect } from "chai";
import { spawn, spawnSync } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { createServer as createHttpsServer } from "https";
import type { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { requireDebianTool } from "../debianTools";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { MODULE_DIR, modulePath } from "../../components/nodes/bootstrapModuleFiles";
import { BootstrapModule, bootstrapSteps, modulesFor } from "../../components/nodes/bootstrapSteps";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { JOINED_MARKER, KUBEADM_JOINED_MARKER } from "../../components/nodes/nodeFacts";
import { factsHeader } from "../../components/nodes/shellHeader";
import { BOOTSTRAP_SCRIPT, BOOTSTRAP_SERVICE, systemdUnits } from "../../components/nodes/systemdUnits";
import { renderBootstrapScript, renderUserData, withoutComments } from "../../components/nodes/userData";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";
import { AwsFake, cliDirectory, startAws } from "../standins/aws";
import { CLUSTER_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";

const MODULES = readdirSync(MODULE_DIR)
  .filter((f) => f.endsWith(".sh"))
  .map((f) => f.replace(/\.sh$/, "") as BootstrapModule);

/** The header's facts and defaults, then the modules: what a script of those modules has. */
const sources = (modules: BootstrapModule[]) =>
  factsHeader() + modules.map((m) => `source ${JSON.stringify(modulePath(m))}`).join("\n");

/** Runs FUNCTION ARGS in bash with the given modules sourced; stdout, stderr and status. */
function call(modules: BootstrapModule[], fn: string, args: string[], input = "") {
  const r = spawnSync("bash", ["-c", `set -euo pipefail; ${sources(modules)}; ${fn} "$@"`, "bash", ...args], {
    input,
    encoding: "utf8",
  });
  return { out: r.stdout, err: r.stderr, status: r.status };
}

/** The init record's name, and a time it was created at. */
const INIT_RECORD = "/cilium-cluster/dev.k8s.local/control-plane/initialized-0123456789ab";
const AT = "2026-01-01T00:00:00Z";

/**
 * An account of the AWS fake with this node's instance (`self`), and the init record when `owner` created
 * it; SCRIPT run in bash with MODULES sourced, on that instance (its `aws` and instance metadata), and
 * asynchronously: the fake answers from this process. `before` changes the account first.
 */
async function onInstance(
  self: string,
  owner: string | undefined,
  modules: BootstrapModule[],
  script: string,
  env: Record<string, string> = {},
  before: (aws: AwsFake) => void = () => {},
) {
  const aws = await startAws();
  try {
    aws.launch({
      id: self,
      privateIp: "10.0.1.10",
      zone: "us-east-1a",
      instanceType: "t3.large",
      mac: "0a:00:00:00:00:01",
      tags: {},
    });
    if (owner) aws.putParameter(INIT_RECORD, `${owner} ${AT}`, "String");
    before(aws);
    const child = spawn("bash", ["-c", `set -euo pipefail; ${sources(modules)}; ${script}`], {
      env: {
        ...process.env,
        PATH: `${cliDirectory(aws.cliScript(self))}:${process.env.PATH}`,
        IMDS_ENDPOINT: aws.imdsUrl(self),
        REGION: "us-east-1",
        INIT_RECORD,
        BOOTSTRAP_RETRY_DELAY: "0",
        ...env,
      },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    const status = await new Promise<number | null>((done) => child.on("close", done));
    return { status, out };
  } finally {
    await aws.close();
  }
}

const API = { internal: "api.example.test", public: "api.example.com", caParameter: "/cluster-ca" };
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

/** The functions a script or module defines. */
const definedIn = (text: string) => new Set([...text.matchAll(/^(\w+)\(\) \{/gm)].map((m) => m[1]));

describe("bootstrap modules", () => {
  it("are the files the steps name, and define functions only: sourcing one runs nothing", () => {
    const named = new Set<string>([...modulesFor(bootstrapSteps(worker)), ...modulesFor(bootstrapSteps(controlPlane))]);
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
      expect(definedIn(readFileSync(modulePath(m), "utf8")).size, `${m} defines functions`).to.be.greaterThan(0);
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

  it("join_mode: none once joined, reset after a half-done join, init only while no cluster was ever created", () => {
    // role, in the init zone, API answers, kubeadm state, init record exists (another instance's)
    type Row = [string, string, string, string, string, string];
    const table: Row[] = [
      ["control-plane", "yes", "no", "fresh", "no", "init"],
      ["control-plane", "yes", "yes", "fresh", "no", "join"],
      ["control-plane", "no", "no", "fresh", "no", "join"],
      // The record exists: never init, whatever the probe of the API says (the join waits for it).
      ["control-plane", "yes", "no", "fresh", "yes", "join"],
      ["control-plane", "yes", "yes", "fresh", "yes", "join"],
      ["node", "yes", "no", "fresh", "no", "join"],
      ["node", "no", "yes", "fresh", "no", "join"],
      // A half-done join or init is undone first, whatever else holds; a joined node does nothing.
      ["control-plane", "yes", "no", "partial", "no", "reset"],
      ["control-plane", "no", "yes", "partial", "yes", "reset"],
      ["node", "no", "yes", "partial", "no", "reset"],
      ["control-plane", "yes", "no", "joined", "no", "none"],
      ["control-plane", "no", "yes", "joined", "yes", "none"],
      ["node", "no", "yes", "joined", "no", "none"],
    ];
    for (const [role, zone, api, state, record, mode] of table) {
      const args = [role, zone, api, state, record];
      const r = call(["lib", "kubeadm"], "join_mode", args);
      expect([r.status, r.out], args.join(" ")).to.deep.equal([0, `${mode}\n`]);
    }
    // Every input combination: init only on the init zone's fresh control-plane node, with no API and no record.
    const yn = ["yes", "no"];
    for (const role of ["control-plane", "node"])
      for (const state of ["fresh", "partial", "joined"])
        for (const zone of yn)
          for (const api of yn)
            for (const record of yn) {
              const args = [role, zone, api, state, record];
              const r = call(["lib", "kubeadm"], "join_mode", args);
              expect(r.status, args.join(" ")).to.equal(0);
              const init =
                role === "control-plane" && state === "fresh" && zone === "yes" && api === "no" && record === "no";
              expect(r.out === "init\n", args.join(" ")).to.equal(init);
            }
    for (const bad of [
      ["master", "yes", "no", "fresh", "no"],
      ["control-plane", "true", "no", "fresh", "no"],
      ["node", "no", "no", "half", "no"],
      ["control-plane", "yes", "no", "fresh", "maybe"],
      ["control-plane", "yes", "no", "fresh"],
      ["control-plane", "yes", "no", "fresh", "no", "no"],
    ]) {
      const r = call(["lib", "kubeadm"], "join_mode", bad);
      expect(r.status, bad.join(" ")).to.equal(2);
      expect(r.out).to.equal("");
    }
  });

  it("init_record_state: another instance's record is held while its owner runs healthy, stale once it is gone and no member could be", async () => {
    const SELF = "i-0aaaaaaaaaaaaaaaa";
    const OWNER = "i-0bbbbbbbbbbbbbbbb";
    const controlPlane = { [CLUSTER_TAG]: "dev.k8s.local", [ROLE_TAGS["control-plane"]]: "1" };
    const launch = (aws: AwsFake, id: string, privateIp: string) =>
      aws.launch(
        { id, privateIp, zone: "us-east-1b", instanceType: "t3.large", mac: "0a:00:00:00:00:02", tags: controlPlane },
        { name: "control-plane-us-east-1b.dev.k8s.local", hooks: [] },
      );
    const run = (fn: string, owner?: string, before?: (aws: AwsFake) => void) =>
      onInstance(
        SELF,
        owner,
        ["lib", "parameters", "etcd", "control-plane"],
        fn,
        { CLUSTER_NAME: "dev.k8s.local", CLUSTER_CA_PARAMETER: "/cluster-ca" },
        before,
      );
    const state = async (owner?: string, before?: (aws: AwsFake) => void) =>
      (await run("init_record_state", owner, before)).out;
    const ownerRunning = (aws: AwsFake) => launch(aws, OWNER, "10.0.2.20");
    const ownerUnhealthy = (aws: AwsFake) => (launch(aws, OWNER, "10.0.2.20").health = "UNHEALTHY");
    const ownerAs = (ec2State: string) => (aws: AwsFake) => (launch(aws, OWNER, "10.0.2.20").state = ec2State);

    expect(await state()).to.equal("none\n");
    // Its own record: a kubeadm init of this instance failed before, and it may init again.
    expect(await state(SELF)).to.equal("own\n");
    expect(await state(OWNER, ownerRunning)).to.equal("held\n");
    expect(await state(OWNER, ownerAs("pending"))).to.equal("held\n");
    // Its owner gone (terminated, stopped, unknown to EC2, or unhealthy: Auto Scaling replaces it), and no
    // other control-plane instance whose etcd could answer (the cluster's keys were never stored, so no member
    // ever joined; tests/components/bootstrapRun.test.ts asks members that answer and do not).
    for (const gone of ["terminated", "shutting-down", "stopped"])
      expect(await state(OWNER, ownerAs(gone)), gone).to.equal("stale\n");
    expect(await state(OWNER, ownerUnhealthy)).to.equal("stale\n");
    expect(await state(OWNER)).to.equal("stale\n");
    // init_record_exists: "yes" only while held, so join_mode never inits then.
    expect((await run("init_record_exists", OWNER, ownerRunning)).out).to.equal("yes\n");
    expect((await run("init_record_exists", OWNER)).out).to.equal("no\n");
    // Never taken for "none" or "stale" when AWS cannot say: that could create a second cluster.
    for (const action of ["ssm:GetParameter", "ec2:DescribeInstances", "autoscaling:DescribeAutoScalingInstances"]) {
      const failing = await run("init_record_state", OWNER, (aws) => {
        ownerAs("terminated")(aws);
        aws.throttle(action, 100);
      });
      expect([failing.status, failing.out], action).to.deep.equal([1, ""]);
    }
  });

  it("kubeadm_state: what kubeadm left decides; the CA a control plane fetches does not", () => {
    const root = mkdtempSync(join(tmpdir(), "state-"));
    const state = (role: string) =>
      spawnSync("bash", ["-c", `${sources(["kubeadm"])}; kubeadm_state ${role}`], {
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
    // etcd's data directory on the root volume: only a join or init that stopped half-way leaves anything there.
    mkdirSync(join(root, "var/lib/etcd"), { recursive: true });
    expect(state("control-plane")).to.equal("fresh");
    put("var/lib/etcd/member/snap/db");
    expect(state("control-plane")).to.equal("partial");
    rmSync(join(root, "var/lib/etcd/member"), { recursive: true });
    put("etc/kubernetes/manifests/etcd.yaml");
    expect(state("control-plane")).to.equal("partial");
    put("etc/kubernetes/kubelet.conf");
    // The marker of every step done is not kubeadm's: only kubeadm's own marker makes a join complete.
    put(JOINED_MARKER);
    expect([state("node"), state("control-plane")]).to.deep.equal(["partial", "partial"]);
    put(KUBEADM_JOINED_MARKER);
    expect([state("node"), state("control-plane")]).to.deep.equal(["joined", "joined"]);
    // Without kubelet.conf the node is not joined, whatever the marker says.
    rmSync(join(root, "etc/kubernetes/kubelet.conf"));
    rmSync(join(root, "etc/kubernetes/manifests"), { recursive: true });
    rmSync(join(root, "etc/kubernetes/pki"), { recursive: true });
    expect([state("node"), state("control-plane")]).to.deep.equal(["fresh", "fresh"]);
  });

  /** /etc/hosts of a node before the bootstrap touches it. */
  const HOSTS = "127.0.0.1 localhost\n10.0.0.9 other.internal\n";
  const API_NAME = "api.internal.dev.k8s.local";
  const hostsRoot = () => {
    const root = mkdtempSync(join(tmpdir(), "hosts-"));
    mkdirSync(join(root, "etc"));
    writeFileSync(join(root, "etc/hosts"), HOSTS);
    return root;
  };
  const inRoot = (root: string, fn: string, env: Record<string, string> = {}) =>
    spawnSync("bash", ["-c", `set -euo pipefail; ${sources(["lib", "control-plane", "kubeadm"])}; ${fn}`], {
      encoding: "utf8",
      env: { ...process.env, BOOTSTRAP_ROOT: root, API_ENDPOINT: API_NAME, ...env },
    });

  it("pin_api_endpoint resolves the API's name to this node first, once however often it runs; unpin undoes it", () => {
    const root = hostsRoot();
    const hosts = () => readFileSync(join(root, "etc/hosts"), "utf8");
    for (let i = 0; i < 2; i++) expect(inRoot(root, "pin_api_endpoint").status).to.equal(0);
    const [first, ...rest] = hosts().split("\n");
    // The first line for a name wins (glibc's files lookup), before DNS ("files dns").
    expect(first.split(/\s+/).slice(0, 2)).to.deep.equal(["127.0.0.1", API_NAME]);
    expect(rest.join("\n")).to.equal(HOSTS);
    expect(inRoot(root, "unpin_api_endpoint").status).to.equal(0);
    expect(hosts()).to.equal(HOSTS);
    const none = mkdtempSync(join(tmpdir(), "hosts-"));
    expect(inRoot(none, "unpin_api_endpoint").status).to.equal(0);
    expect(readdirSync(none)).to.deep.equal([]);
  });

  it("kubeadm_reset undoes a half-done join with kubeadm reset, the API's name back and a joining member gone first", async () => {
    // The commands kubeadm_reset ran, each with how many lines of /etc/hosts named the API then. The init
    // record's owner is what SSM holds (none: no record); the member's removal a stand-in function.
    const reset = async (role: string, owner: string, removal: "ok" | "fails") => {
      const root = hostsRoot();
      if (role === "control-plane") expect(inRoot(root, "pin_api_endpoint").status).to.equal(0);
      const r = await onInstance(
        "i-0self",
        owner === "none" ? undefined : owner,
        // The modules of the role's own script: a worker's has no control-plane.sh.
        role === "control-plane" ? ["lib", "parameters", "control-plane", "kubeadm"] : ["lib", "parameters", "kubeadm"],
        [
          `kubeadm() { { echo "kubeadm $*"; grep -c ${API_NAME} "$BOOTSTRAP_ROOT/etc/hosts" || true; } >>"$BOOTSTRAP_ROOT/calls"; }`,
          `etcd_remove_members() { echo "etcd_remove_members $*" >>"$BOOTSTRAP_ROOT/calls"; [ ${removal} = ok ]; }`,
          "touch $BOOTSTRAP_ROOT/calls; kubeadm_reset",
        ].join("\n"),
        { ROLE: role, BOOTSTRAP_ROOT: root, API_ENDPOINT: API_NAME },
      );
      return {
        status: r.status,
        calls: readFileSync(join(root, "calls"), "utf8"),
        hosts: readFileSync(join(root, "etc/hosts"), "utf8"),
      };
    };
    // The run fails, so systemd starts the bootstrap again from its first step, which fetches again what
    // kubeadm reset removed. A control-plane node's reset reaches the cluster through the load balancer.
    const joining = await reset("control-plane", "i-0other", "ok");
    expect(joining).to.deep.equal({
      status: 1,
      calls: "etcd_remove_members self\nkubeadm reset --force\n0\n",
      hosts: HOSTS,
    });
    // No reset while its member cannot leave: its data would go and its member stay.
    expect((await reset("control-plane", "i-0other", "fails")).calls).to.equal("etcd_remove_members self\n");
    // The node that created the cluster has no one to leave.
    expect(await reset("control-plane", "i-0self", "fails")).to.deep.equal({
      status: 1,
      calls: "kubeadm reset --force\n0\n",
      hosts: HOSTS,
    });
    expect(await reset("node", "none", "fails")).to.deep.equal({
      status: 1,
      calls: "kubeadm reset --force\n0\n",
      hosts: HOSTS,
    });
  });

  it("renew_certificates_if_due renews and restarts the control plane only when its certificate expires soon, on its turn", function () {
    requireDebianTool(this, "openssl", "openssl");
    // Three control-plane Nodes; this one is the second by name. Day 1 (UTC) is its turn, day 2 is not.
    const day = (n: number) => String(n * 86400 + 3600);
    const renew = (days: number, now = day(1), nodes = "node/ip-c\nnode/ip-b\nnode/ip-a\n") => {
      const root = mkdtempSync(join(tmpdir(), "renew-"));
      const pki = join(root, "etc/kubernetes/pki");
      mkdirSync(pki, { recursive: true });
      const args = `req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days ${days} -subj /CN=apiserver`;
      const out = ["-keyout", join(root, "key"), "-out", join(pki, "apiserver.crt")];
      const cert = spawnSync("openssl", [...args.split(" "), ...out], { encoding: "utf8" });
      expect(cert.status, cert.stderr).to.equal(0);
      const bin = join(root, "bin");
      mkdirSync(bin);
      const calls = join(root, "calls");
      for (const tool of ["kubeadm", "crictl"])
        writeFileSync(
          join(bin, tool),
          `#!/bin/bash\necho "${tool} $*" >>${calls}\nif [ "$1" = ps ]; then echo "c-\${3//[^a-z-]/}"; fi\n`,
          { mode: 0o755 },
        );
      // The API's control-plane Nodes (nothing when NODES is empty: the API does not answer), and the clock.
      writeFileSync(join(bin, "kubectl"), `#!/bin/bash\n[ -n "${nodes}" ] && printf "${nodes}"\n`, { mode: 0o755 });
      writeFileSync(join(bin, "date"), `#!/bin/bash\necho ${now}\n`, { mode: 0o755 });
      const r = spawnSync(
        "bash",
        [
          "-c",
          `set -euo pipefail; ${sources(["lib", "drain", "control-plane"])}; node_name() { echo ip-b; }; renew_certificates_if_due`,
        ],
        { encoding: "utf8", env: { ...process.env, BOOTSTRAP_ROOT: root, PATH: `${bin}:${process.env.PATH}` } },
      );
      expect(r.status, r.stderr).to.equal(0);
      return existsSync(calls) ? readFileSync(calls, "utf8").trim().split("\n") : [];
    };
    expect(renew(200)).to.deep.equal([]);
    // Due, but another node's day: nothing yet; the next day, or when the API cannot say, it renews.
    expect(renew(30, day(2))).to.deep.equal([]);
    expect(renew(30, day(2), "")[0]).to.equal("kubeadm certs renew all");
    const due = renew(30);
    expect(due[0]).to.equal("kubeadm certs renew all");
    // The static pods' containers stop, and the kubelet starts them again on the new certificates.
    const stopped = due.filter((c) => c.startsWith("crictl stop")).map((c) => c.split(" ")[2]);
    expect(stopped).to.have.members(["c-kube-apiserver", "c-kube-controller-manager", "c-kube-scheduler", "c-etcd"]);
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
      return spawnSync("bash", ["-c", `set -euo pipefail; ${sources(["lib"])}; retry "$@"`, "bash", flaky, failures], {
        encoding: "utf8",
        env,
      });
    };
    const ok = retry("3");
    expect([ok.status, ok.stdout]).to.deep.equal([0, "out 3\n"]);
    expect(ok.stderr.match(/failed; again in 0s/g)).to.have.length(3);
    const gaveUp = retry("4");
    expect(gaveUp.status).to.equal(1);
    expect(gaveUp.stderr).to.contain("gave up after 4 tries");
  });

  it("fill_placeholders fills every @NAME@ given and refuses to leave one", () => {
    const text = 'name: "@NODE_NAME@"\nnode-ip: @NODE_IP@\n';
    const filled = call(["lib", "kubeadm"], "fill_placeholders", ["NODE_NAME=a&b.c", "NODE_IP=10.0.0.1"], text);
    expect([filled.status, filled.out]).to.deep.equal([0, 'name: "a&b.c"\nnode-ip: 10.0.0.1\n']);
    const missing = call(["lib", "kubeadm"], "fill_placeholders", ["NODE_NAME=x"], text);
    expect(missing.status).to.equal(1);
    expect(missing.out).to.equal("");
    expect(missing.err).to.contain("@NODE_IP@");
  });

  it("api_ready counts only a 2xx from /readyz: a 401 or a 500 is an API not ready", async function () {
    requireDebianTool(this, "openssl", "openssl");
    const dir = mkdtempSync(join(tmpdir(), "readyz-"));
    const args = "req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=api -keyout key.pem -out cert.pem";
    const made = spawnSync("openssl", args.split(" "), { encoding: "utf8", cwd: dir });
    expect(made.status, made.stderr).to.equal(0);
    const [key, cert] = ["key.pem", "cert.pem"].map((f) => readFileSync(join(dir, f), "utf8"));
    let status = 200;
    const server = createHttpsServer({ key, cert }, (request, response) => {
      response.writeHead(request.url === "/readyz" ? status : 404).end(status === 200 ? "ok" : "not ready");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const ready = () =>
      new Promise<number | null>((resolve) =>
        spawn("bash", ["-c", `${sources(["lib", "kubeadm"])}; API_ENDPOINT=127.0.0.1 API_PORT=${port} api_ready`], {
          stdio: "ignore",
        }).on("close", resolve),
      );
    try {
      const answers: Record<number, number | null> = {};
      for (status of [200, 401, 403, 500, 503]) answers[status] = await ready();
      expect(answers).to.deep.equal({ 200: 0, 401: 22, 403: 22, 500: 22, 503: 22 });
    } finally {
      server.close();
    }
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
      ["-c", `${sources(["lib", "kubeadm"])}; API_ENDPOINT=api API_PORT=443 wait_for_api`],
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
});

describe("drain.sh", () => {
  /**
   * node_drained NODE with kubectl answering as an API server holding `node` (none: no such Node) and
   * `pods` on it (tests/kubernetes/ runs it against the real API server); kubectl fails when `down`.
   */
  function nodeDrained(node: object | undefined, pods: object[], down = false) {
    const dir = mkdtempSync(join(tmpdir(), "drained-"));
    try {
      writeFileSync(join(dir, "node.json"), node ? JSON.stringify(node) : "");
      writeFileSync(join(dir, "pods.json"), JSON.stringify({ items: pods }));
      // Exactly the calls node_drained makes, with the node's own admin kubeconfig; anything else fails.
      writeFileSync(
        join(dir, "kubectl"),
        `#!/bin/bash
${down ? "exit 1" : ""}
[ "$1 $2 $3" = "--kubeconfig ${dir}/etc/kubernetes/admin.conf --request-timeout=10s" ] || exit 2
case "\${*:4}" in
"get node ip-10-0-12-34 --ignore-not-found -o json") cat "${dir}/node.json";;
"get pods --all-namespaces --field-selector spec.nodeName=ip-10-0-12-34 -o json") cat "${dir}/pods.json";;
*) exit 2;;
esac
`,
      );
      chmodSync(join(dir, "kubectl"), 0o755);
      const r = spawnSync(
        "bash",
        ["-c", `set -euo pipefail; ${sources(["lib", "drain"])}; node_drained ip-10-0-12-34`],
        { encoding: "utf8", env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, BOOTSTRAP_ROOT: dir } },
      );
      return { out: r.stdout.trim(), status: r.status };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const cordoned = { metadata: { name: "ip-10-0-12-34" }, spec: { unschedulable: true } };
  const pod = (name: string, metadata: object = {}) => ({ metadata: { name, namespace: "kube-system", ...metadata } });
  const daemonSetPod = pod("cilium-x", { ownerReferences: [{ kind: "DaemonSet", name: "cilium" }] });
  const mirror = pod("etcd-ip-10-0-12-34", { annotations: { "kubernetes.io/config.mirror": "0123" } });
  const handler = pod("aws-node-termination-handler-x", {
    labels: { "app.kubernetes.io/name": "aws-node-termination-handler" },
    ownerReferences: [{ kind: "ReplicaSet", name: "aws-node-termination-handler-5d4f" }],
  });
  const replicaSetPod = pod("coredns-x", { ownerReferences: [{ kind: "ReplicaSet", name: "coredns-6d" }] });

  it("node_drained: yes once the Node is cordoned with only what a drain leaves on it, or gone; else what holds it", () => {
    const table: [string, object | undefined, object[], string][] = [
      ["gone", undefined, [], "yes"],
      ["cordoned, empty", cordoned, [], "yes"],
      ["cordoned, DaemonSet, mirror and handler pods", cordoned, [daemonSetPod, mirror, handler], "yes"],
      ["schedulable, empty", { metadata: cordoned.metadata, spec: {} }, [], "no: not cordoned"],
      ["cordoned, a ReplicaSet's pod", cordoned, [daemonSetPod, replicaSetPod], "no: kube-system/coredns-x"],
      [
        "cordoned, a pod being deleted",
        cordoned,
        [{ ...replicaSetPod, metadata: { ...replicaSetPod.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }],
        "no: kube-system/coredns-x",
      ],
      [
        "cordoned, two bare pods",
        cordoned,
        [pod("debug-b"), mirror, pod("debug-a")],
        "no: kube-system/debug-a kube-system/debug-b",
      ],
    ];
    for (const [what, node, pods, drained] of table)
      expect(nodeDrained(node, pods), what).to.deep.equal({ out: drained, status: 0 });
    expect(nodeDrained(cordoned, [], true).status, "the API does not answer").to.not.equal(0);
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
      "encryption-config",
      "admin-authenticator",
      "kubelet",
      "etcd-leave",
      "join",
      "bootstrap-tokens",
      "shared-pki",
      "admin-authenticator-pod",
      "control-plane-services",
      "launch-hook",
    ]);
  });

  it("a worker's user data carries no control-plane code; a control-plane node's carries what it runs", () => {
    const controlPlaneOnly = [
      "kubeadm_init",
      "wait_for_shared_pki",
      "share_control_plane_pki",
      "etcd_remove_members",
      "etcd_backup",
      "leave_etcd_on_termination",
      "renew_certificates_if_due",
      "start_control_plane_services",
      "retire_bootstrap_tokens",
      "mint_node_credential",
      "before_member_join",
      "after_member_join",
      "before_member_reset",
      "init_record_exists",
      "issue_node_credentials",
      "issue_node_credentials_while_up",
    ];
    const text = renderUserData(worker);
    for (const absent of ["InitConfiguration", "ca.key"]) expect(text, absent).not.to.contain(absent);
    const workerScript = renderBootstrapScript(worker);
    const workerDefines = definedIn(workerScript);
    for (const fn of controlPlaneOnly) expect(workerDefines.has(fn), fn).to.equal(false);
    // Nor a branch for the control plane: what only it does around kubeadm is its own module's (role_part).
    expect(workerScript).not.to.match(/"\$ROLE" = control-plane/);
    for (const fn of ["etcd_remove_members", "wait_for_shared_pki", "upgrade_cluster", "pin_api_endpoint"])
      expect(workerScript, fn).not.to.match(new RegExp(`\\b${fn}\\b`));
    for (const m of ["control-plane", "etcd", "node-credentials"] as BootstrapModule[])
      expect(modulesFor(bootstrapSteps(worker)), m).not.to.include(m);
    // A worker reads the credential issued to its instance; it signs none.
    expect(modulesFor(bootstrapSteps(worker))).to.include("join-credential");
    // The control plane's join removes departed etcd members first: etcd.sh comes with control-plane.sh.
    expect(modulesFor(bootstrapSteps(controlPlane))).to.include.members(["control-plane", "etcd"] as BootstrapModule[]);
    expect(renderUserData(controlPlane)).to.contain("kind: InitConfiguration");
    const controlPlaneDefines = definedIn(renderBootstrapScript(controlPlane));
    for (const fn of controlPlaneOnly) expect(controlPlaneDefines.has(fn), fn).to.equal(true);
  });

  it("calls only functions its own script defines, but the role parts another role defines", () => {
    const every = new Map(
      MODULES.flatMap((m) => [...definedIn(readFileSync(modulePath(m), "utf8"))].map((f) => [f, m])),
    );
    for (const config of [worker, controlPlane]) {
      const modules = modulesFor(bootstrapSteps(config));
      const own = definedIn(renderBootstrapScript(config));
      const lacking = [...every.keys()].filter((f) => !own.has(f));
      for (const m of modules) {
        const lines = readFileSync(modulePath(m), "utf8")
          .split("\n")
          .filter((l) => !/^\s*#/.test(l));
        for (const fn of lacking)
          for (const line of lines.filter((l) => new RegExp(`(^|[^\\w-])${fn}($|[^\\w-])`).test(l))) {
            // kubeadm.sh's role_part and role_around run a function only where the role's modules define it.
            expect(line, `${m} calls ${fn} (${every.get(fn)}): ${line.trim()}`).to.match(
              new RegExp(`role_(part|around) ${fn}( |\\)|$)`),
            );
          }
      }
    }
  });

  it("every step's function is defined in the modules a role's script carries, and run_steps runs them in order", () => {
    for (const config of [worker, controlPlane]) {
      const script = renderBootstrapScript(config);
      const steps = bootstrapSteps(config);
      for (const s of steps) expect(definedIn(script).has(s.run), `${config.role}: ${s.run}`).to.equal(true);
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

  it("runs one function of its modules when given one, and no step", () => {
    const dir = mkdtempSync(join(tmpdir(), "script-"));
    for (const config of [worker, controlPlane]) {
      const file = join(dir, config.role);
      writeFileSync(file, renderBootstrapScript(config));
      const r = spawnSync("bash", [file, "join_mode", config.role, "no", "no", "fresh", "no"], { encoding: "utf8" });
      expect([r.status, r.stdout, r.stderr], config.role).to.deep.equal([0, "join\n", ""]);
      // A function that fails fails the script, as a unit sees it.
      const failed = spawnSync("bash", [file, "join_mode", "master"], { encoding: "utf8" });
      expect(failed.status, config.role).to.equal(2);
    }
  });

  it("installs on the control plane units that each run a function of its script; on workers none", () => {
    expect(Object.keys(systemdUnits(worker))).to.deep.equal([BOOTSTRAP_SERVICE]);
    const units = systemdUnits(controlPlane);
    const own = definedIn(renderBootstrapScript(controlPlane));
    const runs = Object.entries(units)
      .filter(([name]) => name !== BOOTSTRAP_SERVICE)
      .flatMap(([name, text]) => [...text.matchAll(/^ExecStart=(\S+) (\w+)/gm)].map((m) => [name, m[1], m[2]]));
    expect(runs.map(([name]) => name).sort()).to.deep.equal(
      Object.keys(units)
        .filter((n) => n.endsWith(".service") && n !== BOOTSTRAP_SERVICE)
        .sort(),
    );
    for (const [name, script, fn] of runs) {
      expect(script, name).to.equal(BOOTSTRAP_SCRIPT);
      expect(own.has(fn), `${name} runs ${fn}`).to.equal(true);
    }
    // Each timer starts a service of its name.
    for (const timer of Object.keys(units).filter((n) => n.endsWith(".timer")))
      expect(units, timer).to.have.property(timer.replace(/\.timer$/, ".service"));
  });

  it("start_control_plane_services enables every control-plane unit with an [Install] section, and only those", () => {
    const root = mkdtempSync(join(tmpdir(), "services-"));
    const r = spawnSync(
      "bash",
      [
        "-c",
        `${sources(["lib", "control-plane"])}; systemctl() { echo "$*" >>${root}/calls; }; start_control_plane_services`,
      ],
      { encoding: "utf8" },
    );
    expect(r.status, r.stderr).to.equal(0);
    const [reload, enable] = readFileSync(join(root, "calls"), "utf8").trim().split("\n");
    expect(reload).to.equal("daemon-reload");
    const [verb, now, ...enabled] = enable.split(" ");
    expect([verb, now]).to.deep.equal(["enable", "--now"]);
    // etcd-leave is started before the join (arm_etcd_leave), the others once the node has joined.
    const installable = Object.entries(systemdUnits(controlPlane))
      .filter(([name, text]) => name !== BOOTSTRAP_SERVICE && /^\[Install\]$/m.test(text))
      .map(([name]) => name);
    expect(enabled.sort()).to.deep.equal(installable.filter((n) => n !== "etcd-leave.service").sort());
    const armed = spawnSync(
      "bash",
      ["-c", `${sources(["lib", "control-plane"])}; systemctl() { echo "$*" >>${root}/armed; }; arm_etcd_leave`],
      { encoding: "utf8" },
    );
    expect(armed.status, armed.stderr).to.equal(0);
    expect(readFileSync(join(root, "armed"), "utf8").trim().split("\n")).to.deep.equal([
      "enable etcd-leave.service",
      "start --no-block etcd-leave.service",
    ]);
  });

  it("drops comment lines outside here-documents only", () => {
    const source =
      "# about f\nf() {\n  # inside\n  cat <<'EOF'\n# kept: data\nEOF\n  echo hi # trailing\n}\n# shellcheck disable=SC2034\n";
    expect(withoutComments(source)).to.equal(
      "f() {\n  cat <<'EOF'\n# kept: data\nEOF\n  echo hi # trailing\n}\n# shellcheck disable=SC2034\n",
    );
  });
});
