// The bootstrap run for real: bash executes the rendered user data and then the bootstrap service on a
// scratch node (tests/standins/node.ts), against a kubeadm stand-in that enforces kubeadm's preflight.
import { expect } from "chai";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "fs";
import { Server } from "http";
import { join } from "path";
import { parseAllDocuments } from "yaml";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { TOOLS_PATH } from "../../components/nodes/controlPlaneState";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { ETCD_MEMBER_RECORD_TTL } from "../../components/nodes/controlPlaneState";
import { BOOTSTRAP_SCRIPT, JOINED_MARKER } from "../../components/nodes/systemdUnits";
import { renderUserData } from "../../components/nodes/userData";
import { examples, GOLDEN_DIR } from "../../plan/examples";
import type { ClusterSpec } from "../../spec/types";
import { requireDebianTool } from "../debianTools";
import { specWith } from "../fixtures";
import { makeSecrets, newNode, Node, Options, run, runService, runUserData, startImds } from "../standins/node";

const NEVER = "1000000";
let zone = "us-east-1a";
let imds: Server;
let imdsUrl: string;
let secrets: { dir: string; caHash: string };

/** The init record this test's control-plane nodes are told. */
const INIT_RECORD = "/cilium-cluster/dev.k8s.local/control-plane/initialized-test";

const userDataFor = (spec: ClusterSpec, group: string) =>
  renderUserData(
    bootstrapConfig(
      spec,
      instanceGroups(spec).find((g) => g.name === group)!,
      { internal: "api.example.test", public: "api.example.com" },
      { initRecord: INIT_RECORD, backupBucket: "etcd-backups-test", privateZoneId: "ZTEST" },
    ),
  );

/** Where the SSM stand-in keeps the init record a node created. */
const recordFile = (node: Node) => join(node.state, "parameters", INIT_RECORD.split("/").pop()!);

const header = (userData: string, name: string) => new RegExp(`^\\s*${name}='([^']*)'$`, "m").exec(userData)![1];

/** Installs the user data on a fresh node and runs the bootstrap service until it succeeds. */
async function boot(
  userData: string,
  env: Record<string, string> = {},
  runs = 6,
  before: Pick<Options, "parameters" | "files"> = {},
) {
  const node = newNode({
    imdsUrl,
    secrets: secrets.dir,
    kubernetesVersion: header(userData, "KUBERNETES_VERSION"),
    env,
    ...before,
  });
  const installed = await runUserData(node, userData);
  expect(installed.status, installed.stderr).to.equal(0);
  const service = await runService(node, runs);
  return { node, service };
}

function kubeadmDocument(node: Node, kind: string, index = -1) {
  const configs = node.kubeadmConfigs();
  const docs = parseAllDocuments(configs.at(index) ?? "").map((d) => d.toJS());
  const found = docs.find((d) => d?.kind === kind);
  expect(found, `a ${kind} in the kubeadm configuration`).not.to.equal(undefined);
  return found;
}

const calls = (node: Node, tool: string) =>
  node
    .log()
    .split("\n")
    .filter((l) => l.startsWith(`${tool} `));

/** The machine around a node: the instance-metadata service, the cluster's secrets, the node's zone. */
function standInMachine(): void {
  before(async function () {
    requireDebianTool(this, "openssl", "openssl");
    ({ server: imds, url: imdsUrl } = await startImds(() => zone));
    secrets = makeSecrets();
  });
  after(() => imds?.close());
  beforeEach(() => (zone = "us-east-1a"));
}

describe("node bootstrap, run as cloud-init and systemd run it", function () {
  this.timeout(180000);

  standInMachine();

  it("user data installs the bootstrap as a service and starts it without blocking cloud-init", async () => {
    const node = newNode({ imdsUrl, secrets: secrets.dir, kubernetesVersion: "1.33.5" });
    expect((await runUserData(node, userDataFor(specWith({}), "nodes"))).status).to.equal(0);
    expect(node.exists(BOOTSTRAP_SCRIPT)).to.equal(true);
    expect(calls(node, "systemctl")).to.deep.equal([
      "systemctl daemon-reload",
      "systemctl enable cilium-cluster-bootstrap.service",
      "systemctl start --no-block cilium-cluster-bootstrap.service",
    ]);
    expect(calls(node, "kubeadm")).to.deep.equal([]);
  });

  for (const example of examples()) {
    it(`every group of ${example.name} joins against kubeadm's contract`, async () => {
      const dir = join(GOLDEN_DIR, example.name, "userdata");
      for (const file of readdirSync(dir)) {
        const userData = readFileSync(join(dir, file), "utf8");
        const role = header(userData, "ROLE");
        const group = header(userData, "INSTANCE_GROUP");
        zone = role === "control-plane" ? group.replace(/^control-plane-/, "") : header(userData, "INIT_ZONE");
        const creates = role === "control-plane" && zone === header(userData, "INIT_ZONE");
        const { node, service } = await boot(userData, { STANDIN_API_READY_AFTER: creates ? NEVER : "0" });
        expect(service.status, `${file}\n${service.stderr}`).to.equal(0);
        expect(service.runs, file).to.equal(1);
        expect(calls(node, "kubeadm"), file).to.deep.equal([
          `kubeadm ${creates ? "init" : "join"} --config ${node.root}/etc/kubernetes/kubeadm.yaml`,
        ]);
        expect(node.exists(JOINED_MARKER), file).to.equal(true);
        expect(calls(node, "aws autoscaling complete-lifecycle-action"), file).to.have.length(1);
        for (const line of calls(node, "apt-get")) expect(line, file).to.contain("-o DPkg::Lock::Timeout=600");
      }
    });
  }

  it("the previous bootstrap (the CA written before join) fails kubeadm's preflight on every worker", async () => {
    // The dev stack's worker user data as the program rendered it before the bootstrap became a service.
    const previous = readFileSync(join(__dirname, "../standins/previous-worker-user-data.txt"), "utf8");
    const node = newNode({ imdsUrl, secrets: secrets.dir, kubernetesVersion: "1.33.5" });
    const result = await runUserData(node, previous);
    expect(result.status).not.to.equal(0);
    expect(result.stderr).to.contain(
      "[ERROR FileAvailable--etc-kubernetes-pki-ca.crt]: /etc/kubernetes/pki/ca.crt already exists",
    );
  });

  it("a worker computes the CA hash in memory, fetches only its own secrets and joins", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"));
    expect(service.status, service.stderr).to.equal(0);
    const fetched = calls(node, "aws ssm").map((l) => /--name (\S+)/.exec(l)![1]);
    expect([...new Set(fetched)].sort()).to.deep.equal([
      "/cilium-cluster/dev.k8s.local/node/bootstrap-token",
      "/cilium-cluster/dev.k8s.local/node/ca.crt",
    ]);
    const join = kubeadmDocument(node, "JoinConfiguration");
    expect(join.discovery.bootstrapToken).to.deep.equal({
      apiServerEndpoint: "api.example.test:443",
      token: "abcdef.0123456789abcdef",
      caCertHashes: [`sha256:${secrets.caHash}`],
    });
    expect(join).not.to.have.property("controlPlane");
    expect(join.nodeRegistration.taints).to.deep.equal([]);
    // ENI mode: the kubelet's node IP from metadata, max pods from t3.large's ENIs less Cilium's two addresses.
    expect(join.nodeRegistration.kubeletExtraArgs).to.deep.equal([{ name: "node-ip", value: "10.0.12.34" }]);
    expect(node.file("etc/kubernetes/patches/kubeletconfiguration+merge.yaml")).to.equal("maxPods: 33\n");
    expect(node.file("etc/systemd/network/75-cilium-eni-secondary.network")).to.contain("Property=!INTERFACE=ens5");
    expect(node.file("etc/cloud/cloud.cfg.d/99-disable-network-hotplug.cfg")).to.contain("boot-new-instance");
    // The tools kubeadm's preflight wants, installed.
    expect(calls(node, "apt-get").join("\n")).to.match(/install -y .*conntrack.*socat/);
  });

  it("ENI mode without kube-proxy: max pods adds back only the agent's host-network pod", async () => {
    const spec = specWith({ networking: { cilium: { enableNodePort: true } }, kubeProxy: { enabled: false } });
    const { node, service } = await boot(userDataFor(spec, "nodes"));
    expect(service.status, service.stderr).to.equal(0);
    // t3.large: 3 × (12 − 1) − 2 reserved + 1 (the agent) = 32, one fewer than with kube-proxy.
    expect(node.file("etc/kubernetes/patches/kubeletconfiguration+merge.yaml")).to.equal("maxPods: 32\n");
  });

  it("other IPAM modes: neither --node-ip nor computed max pods", async () => {
    for (const ipam of ["", "crd"]) {
      const spec = specWith({ networking: { cilium: { ipam, disableMasquerade: false } } });
      const { node, service } = await boot(userDataFor(spec, "nodes"));
      expect(service.status, service.stderr).to.equal(0);
      expect(kubeadmDocument(node, "JoinConfiguration").nodeRegistration, ipam).not.to.have.property(
        "kubeletExtraArgs",
      );
      expect(node.exists("etc/kubernetes/patches/kubeletconfiguration+merge.yaml"), ipam).to.equal(false);
      expect(node.exists("etc/systemd/network/75-cilium-eni-secondary.network"), ipam).to.equal(false);
      expect(node.log()).not.to.contain("describe-instance-types");
    }
  });

  it("the first control-plane node creates the cluster when no API server answers", async () => {
    const spec = specWith({
      networking: { cilium: { ipam: "", disableMasquerade: false, enableNodePort: true } },
      kubeProxy: { enabled: false },
    });
    const { node, service } = await boot(userDataFor(spec, "control-plane-us-east-1a"), {
      STANDIN_API_READY_AFTER: NEVER,
    });
    expect(service.status, service.stderr).to.equal(0);
    const init = kubeadmDocument(node, "InitConfiguration");
    expect(init.bootstrapTokens[0]).to.include({ token: "abcdef.0123456789abcdef", ttl: "0s" });
    expect(init.skipPhases).to.deep.equal(["addon/kube-proxy"]);
    expect(init.nodeRegistration.taints).to.deep.equal([
      { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
    ]);
    const cluster = kubeadmDocument(node, "ClusterConfiguration");
    expect(cluster.networking).to.deep.equal({ serviceSubnet: "100.64.0.0/13", podSubnet: "100.96.0.0/11" });
    expect(cluster.apiServer.certSANs).to.deep.equal(["api.example.test", "api.example.com"]);
    // kubeadm's own images: what `kubeadm config images list --kubernetes-version` names (a restore's etcd tools).
    expect(cluster.imageRepository).to.equal(undefined);
    expect(cluster.etcd.local).to.not.have.any.keys("imageRepository", "imageTag");
    for (const key of ["ca.key", "sa.key", "front-proxy-ca.key", "etcd/ca.key"]) {
      expect(readFileSync(join(node.root, "etc/kubernetes/pki", key)).length, key).to.be.greaterThan(0);
    }
    // It first created the init record, without --overwrite.
    expect(calls(node, "aws ssm put-parameter")).to.deep.equal([
      `aws ssm put-parameter --region us-east-1 --name ${INIT_RECORD} --type String --value ` +
        readFileSync(recordFile(node), "utf8").trim(),
    ]);
    expect(readFileSync(recordFile(node), "utf8")).to.match(/^i-0123456789abcdef0 \d{4}-/);
    expect(calls(node, "systemctl")).to.include(
      "systemctl enable --now etcd-lifecycle.service etcd-backup.timer etcd-name.timer",
    );
    // etcd's tools are those of the etcd image kubeadm runs (its static pod's), copied out of the image, not a
    // Debian package of another release.
    expect(calls(node, "apt-get").some((l) => /etcd-client/.test(l))).to.equal(false);
    const image = /image: (\S+)/.exec(node.file("etc/kubernetes/manifests/etcd.yaml"))![1];
    expect(image).to.match(/^registry\.k8s\.io\/etcd:3\.\d+\.\d+-0$/);
    // Pulled, since the kubelet's image store did not have it yet.
    expect(calls(node, "ctr").slice(0, 2)).to.deep.equal([
      `ctr -n k8s.io images ls -q name==${image}`,
      `ctr -n k8s.io images pull ${image}`,
    ]);
    const tools = `usr/local/lib/cilium-cluster/etcd/${image.split(":")[1]}`;
    for (const tool of ["etcdctl", "etcdutl"])
      expect(statSync(join(node.root, tools, tool)).mode & 0o111, tool).to.not.equal(0);
    expect(node.log()).to.match(/^etcdctl --endpoints=https:\/\/127\.0\.0\.1:2379 .*endpoint status/m);
    // An upgrade changes the image of etcd's static pod: the tools of the new image come next.
    const manifest = join(node.root, "etc/kubernetes/manifests/etcd.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace(image, "registry.k8s.io/etcd:3.6.5-0"));
    const upgraded = await run("bash", [join(node.root, TOOLS_PATH), "etcd_tools_dir"], node.env);
    expect(upgraded.status, upgraded.stderr).to.equal(0);
    expect(calls(node, "ctr").at(-3)).to.equal("ctr -n k8s.io images pull registry.k8s.io/etcd:3.6.5-0");
    expect(statSync(join(node.root, "usr/local/lib/cilium-cluster/etcd/3.6.5-0/etcdutl")).isFile()).to.equal(true);
    expect(node.file("etc/systemd/system/etcd-backup.timer.d/interval.conf")).to.equal(
      "[Timer]\nOnUnitActiveSec=\nOnUnitActiveSec=15min\n",
    );
    expect(node.file("etc/systemd/system/etcd-lifecycle.service")).to.contain("etcd_lifecycle_watch");
    expect(statSync(join(node.root, "usr/local/lib/cilium-cluster/control-plane-tools")).mode & 0o777).to.equal(0o755);
    // What the units' functions read (the bundle's test keeps the list complete), as the user data says it.
    const env = node.file("etc/cilium-cluster/control-plane-tools.env");
    expect(env).to.contain('REGION="us-east-1"\nSECRETS_PREFIX="/cilium-cluster/dev.k8s.local/control-plane/"');
    expect(env).to.contain('CLUSTER_NAME="dev.k8s.local"');
    expect(env).to.match(/^ETCD_MEMBERS="us-east-1a=etcd-us-east-1a\.internal\.dev\.k8s\.local"$/m);
    expect(node.log()).not.to.match(/^kubeadm reset/m);
  });

  it("Kubernetes 1.31: kubeadm still requires conntrack, and the bootstrap installs it", async () => {
    const spec = specWith({ kubernetesVersion: "1.31.9" });
    const { node, service } = await boot(userDataFor(spec, "nodes"));
    expect(service.status, service.stderr).to.equal(0);
    expect(node.exists("usr/sbin/conntrack")).to.equal(true);
    expect(kubeadmDocument(node, "JoinConfiguration").apiVersion).to.equal("kubeadm.k8s.io/v1beta4");
  });

  it("Kubernetes 1.30: kubeadm v1beta3, and crictl, which its preflight requires", async () => {
    const spec = specWith({ kubernetesVersion: "1.30.4", networking: { cilium: { version: "v1.18.14" } } });
    const { node, service } = await boot(userDataFor(spec, "nodes"));
    expect(service.status, service.stderr).to.equal(0);
    expect(node.exists("usr/bin/crictl")).to.equal(true);
    expect(kubeadmDocument(node, "JoinConfiguration").apiVersion).to.equal("kubeadm.k8s.io/v1beta3");
  });

  it("retries a held dpkg lock, a throttled SSM call, a slow API and a half-done join, and then changes nothing", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), {
      STANDIN_APT_FAILURES: "3",
      STANDIN_SSM_THROTTLES: "1",
      STANDIN_API_READY_AFTER: "4",
      STANDIN_KUBEADM_FAILURES: "1",
    });
    expect(service.status, service.stderr).to.equal(0);
    // The join that stopped half-way fails the run; the next run undoes it (not with kubeadm reset) and
    // fails; the third joins.
    expect(service.runs).to.equal(3);
    expect(calls(node, "kubeadm").map((l) => l.split(" ")[1])).to.deep.equal(["join", "join"]);
    expect(service.stderr).to.contain("kubeadm stopped half-way before: undoing what it left");
    expect(service.stderr).to.contain("try 3 of apt-get -o failed");
    expect(service.stderr).to.contain("try 1 of aws ssm failed");
    expect(service.stderr).to.match(/step packages: start[\s\S]*step packages: done/);
    expect(node.exists(JOINED_MARKER)).to.equal(true);

    const before = node.snapshot();
    const again = await runService(node, 1);
    expect(again.status, again.stderr).to.equal(0);
    expect(again.stderr).to.contain("joined with this configuration before: nothing to do");
    expect(calls(node, "kubeadm")).to.have.length(2);
    expect(node.snapshot()).to.deep.equal(before);
  });

  it("a step that fails after the join runs again: the joined marker is written only once every step succeeded", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "control-plane-us-east-1a"), {
      STANDIN_API_READY_AFTER: NEVER,
      STANDIN_ETCD_ENABLE_FAILURES: "1",
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(2);
    expect(calls(node, "systemctl enable --now")).to.deep.equal(
      Array(2).fill("systemctl enable --now etcd-lifecycle.service etcd-backup.timer etcd-name.timer"),
    );
    // kubeadm's own state says joined: the second run neither resets nor creates the cluster again.
    expect(calls(node, "kubeadm").map((l) => l.split(" ")[1])).to.deep.equal(["init"]);
    expect(calls(node, "aws autoscaling complete-lifecycle-action")).to.have.length(1);
    expect(node.exists(JOINED_MARKER)).to.equal(true);
  });

  it("finishes what an interrupted dpkg left before apt-get installs anything", async () => {
    const node = newNode({ imdsUrl, secrets: secrets.dir, kubernetesVersion: "1.33.5" });
    // A node that lost power in the middle of an install: dpkg's journal holds the unfinished work.
    mkdirSync(join(node.root, "var/lib/dpkg/updates"), { recursive: true });
    writeFileSync(join(node.root, "var/lib/dpkg/updates/0001"), "Package: containerd\n");
    expect((await runUserData(node, userDataFor(specWith({}), "nodes"))).status).to.equal(0);
    const service = await runService(node, 2);
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(1);
    const log = node.log().split("\n");
    const configure = log.indexOf("dpkg --configure -a");
    expect(configure).to.be.greaterThan(-1);
    expect(configure).to.be.lessThan(log.findIndex((l) => l.startsWith("apt-get ")));
  });

  it("a control-plane member that stopped half-way is reset and fetches its keys again before it rejoins", async () => {
    const spec = specWith({ controlPlane: { count: 3 } });
    zone = "us-east-1b";
    const { node, service } = await boot(userDataFor(spec, "control-plane-us-east-1b"), {
      STANDIN_KUBEADM_FAILURES: "1",
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(3);
    expect(kubeadmDocument(node, "JoinConfiguration").controlPlane).to.deep.equal({});
    expect(node.file("etc/kubernetes/pki/etcd/ca.key")).to.equal(
      readFileSync(join(secrets.dir, "etcd-ca.key"), "utf8"),
    );
  });

  const completions = (node: Node) => calls(node, "aws autoscaling complete-lifecycle-action");

  it("a node that never gets its packages (the AWS CLI among them), or its kernel modules, never completes its launch hook", async () => {
    // The old join-deadline report needed `aws`, which a node whose apt fails never has: it reported nothing.
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), { STANDIN_APT_FAILURES: NEVER }, 3);
    expect(service.status).not.to.equal(0);
    expect(service.stderr).to.contain("gave up after 8 tries: apt-get -o");
    expect(calls(node, "aws")).to.deep.equal([]);
    expect(completions(node)).to.deep.equal([]);
    expect(node.exists(JOINED_MARKER)).to.equal(false);
    // A kernel step that fails, before any package: nothing reaches Auto Scaling either, the hook abandons it.
    const kernel = await boot(userDataFor(specWith({}), "nodes"), { STANDIN_MODPROBE_MISSING: "br_netfilter" }, 2);
    expect(kernel.service.status).not.to.equal(0);
    expect(kernel.service.stderr).to.contain("Module br_netfilter not found");
    expect(completions(kernel.node)).to.deep.equal([]);
  });

  it("a joined node completes its launch hook once, after every other step, and never again", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), { STANDIN_HOOK_THROTTLES: "2" });
    expect(service.status, service.stderr).to.equal(0);
    expect(completions(node)).to.deep.equal(
      Array(3).fill(
        "aws autoscaling complete-lifecycle-action --region us-east-1 --auto-scaling-group-name nodes.dev.k8s.local " +
          "--lifecycle-hook-name cilium-cluster-joined --instance-id i-0123456789abcdef0 --lifecycle-action-result CONTINUE",
      ),
    );
    expect(service.stderr).to.match(/step join: done[\s\S]*step launch-hook: start[\s\S]*step launch-hook: done/);
    expect(node.file("../state/lifecycle")).to.equal("InService\n");
    // Restarted with the same configuration: nothing to do. Reset by hand since it joined: it joins again,
    // and the instance, InService, has no hook to complete.
    const again = await runService(node, 1);
    expect(again.status, again.stderr).to.equal(0);
    expect((await run("kubeadm", ["reset", "--force"], node.env)).status).to.equal(0);
    const rejoined = await runService(node, 1);
    expect(rejoined.status, rejoined.stderr).to.equal(0);
    expect(rejoined.stderr).to.contain("is InService: no launch hook to complete");
    expect(calls(node, "kubeadm").filter((l) => l.startsWith("kubeadm join"))).to.have.length(2);
    expect(completions(node)).to.have.length(3);
  });

  it("a node whose completion answer was lost finds the action completed, from its state, and succeeds", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), { STANDIN_HOOK_ANSWERS_LOST: "1" }, 2);
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(1);
    // The retry finds no action left, and the instance InService.
    expect(completions(node)).to.have.length(2);
    expect(service.stderr).to.contain("is InService: its launch hook cilium-cluster-joined was completed already");
    expect(node.file("../state/lifecycle")).to.equal("InService\n");
    expect(node.exists(JOINED_MARKER)).to.equal(true);
  });

  it("a completion Auto Scaling refuses while the instance still waits (a wrong group or hook name) fails the run", async () => {
    const { node, service } = await boot(
      userDataFor(specWith({}), "nodes"),
      { STANDIN_LAUNCH_HOOK: "another-hook", BOOTSTRAP_TRIES: "2" },
      2,
    );
    expect(service.status).not.to.equal(0);
    expect(service.runs).to.equal(2);
    expect(service.stderr).to.contain("step launch-hook: start");
    expect(service.stderr).not.to.contain("step launch-hook: done");
    // Still waiting on its hook: the join deadline abandons it unless a later run completes it.
    expect(node.exists("../state/lifecycle"), "no completion reached Auto Scaling").to.equal(false);
  });
});

describe("control-plane bootstrap and the cluster's state, run as systemd runs it", function () {
  this.timeout(180000);
  const FIRST = "control-plane-us-east-1a";
  const OTHERS_RECORD = { [INIT_RECORD]: "i-0aaaaaaaaaaaaaaaa 2026-01-01T00:00:00Z" };
  /** No API answers, and the node waits for it once: a node that would join fails its run instead. */
  const NO_API = { STANDIN_API_READY_AFTER: NEVER, API_WAIT_TRIES: "1" };
  const lines = (node: Node) => node.log().split("\n");
  /** The init zone's member name, which its certificates carry and its peers dial. */
  const MEMBER_NAME = "etcd-us-east-1a.internal.dev.k8s.local";

  standInMachine();

  it("the init zone's control-plane node never runs kubeadm init once the init record exists", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, { parameters: OTHERS_RECORD });
    expect(service.status).to.equal(1);
    expect(node.log()).not.to.match(/^kubeadm init/m);
    expect(node.log()).not.to.contain("put-parameter");
    expect(service.stderr).to.contain("did not answer");
  });

  it("two nodes racing for init: the one that cannot create the record does not init", async () => {
    const { node, service } = await boot(
      userDataFor(specWith({}), FIRST),
      { ...NO_API, STANDIN_RECORD_APPEARS: "1" },
      1,
    );
    expect(service.status).to.equal(1);
    expect(node.log()).to.contain("aws ssm put-parameter");
    expect(node.log()).not.to.match(/^kubeadm init/m);
    expect(service.stderr).to.contain("not creating a second cluster");
  });

  it("completes its launch hook only once etcd is healthy with its member: the gate of the control plane's refresh", async () => {
    const unhealthy = { STANDIN_ETCD_UNHEALTHY: "1", ETCD_READY_SECONDS: "0", ETCD_READY_INTERVAL: "0" };
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), unhealthy, 2);
    expect(service.status).not.to.equal(0);
    expect(service.stderr).to.contain("etcd members not healthy: 8e9e05c52164694d (https://10.0.12.34:2380)");
    expect(service.stderr).to.contain("etcd has no quorum: 0 of 1 members healthy");
    expect(service.stderr).to.contain("step etcd-healthy: start");
    expect(service.stderr).not.to.contain("step launch-hook: start");
    expect(calls(node, "aws autoscaling complete-lifecycle-action")).to.deep.equal([]);
    // etcd healthy again: the next run completes the hook, after the gate.
    node.env.STANDIN_ETCD_UNHEALTHY = "0";
    const again = await runService(node, 1);
    expect(again.status, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/etcd is healthy with member 8e9e05c52164694d in it[\s\S]*step launch-hook: done/);
    expect(calls(node, "aws autoscaling complete-lifecycle-action")).to.have.length(1);
  });

  it("mounts its member's etcd volume before kubeadm runs, with etcd's data directory on it", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), { STANDIN_API_READY_AFTER: NEVER });
    expect(service.status, service.stderr).to.equal(0);
    const log = lines(node);
    expect(log).to.include(
      "aws ec2 attach-volume --region us-east-1 --volume-id vol-0123456789abcdef0 --instance-id i-0123456789abcdef0 --device /dev/sdf",
    );
    expect(node.log()).to.contain(
      "aws ec2 describe-volumes --region us-east-1 --filters Name=tag:KubernetesCluster,Values=dev.k8s.local Name=tag:cilium-cluster/etcd-member,Values=us-east-1a",
    );
    const mount = log.findIndex((l) => l.startsWith("mount "));
    expect(log[mount]).to.match(/^mount .*nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0 .*\/var\/lib\/etcd$/);
    expect(log.findIndex((l) => l.startsWith("mkfs.ext4 "))).to.be.within(0, mount);
    expect(mount).to.be.below(log.findIndex((l) => l.startsWith("kubeadm init")));
    expect(kubeadmDocument(node, "ClusterConfiguration").etcd).to.deep.equal({
      local: { dataDir: "/var/lib/etcd/data", peerCertSANs: [MEMBER_NAME], serverCertSANs: [MEMBER_NAME] },
    });
    expect(node.file("etc/fstab")).to.equal(
      "LABEL=etcd /var/lib/etcd ext4 defaults,nofail,x-systemd.required-by=kubelet.service,x-systemd.before=kubelet.service 0 2\n",
    );
  });

  it("a replaced member with an existing volume rejoins as that member, its peer URL on its name", async () => {
    const { node, service } = await boot(
      userDataFor(specWith({}), FIRST),
      { ...NO_API, STANDIN_MEMBER_PEER: "https://10.0.99.99:2380", STANDIN_VOLUME_FORMATTED: "1" },
      1,
      { parameters: OTHERS_RECORD, files: { "var/lib/etcd/data/member/snap/db": "data" } },
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(node.log()).not.to.match(/^(kubeadm join|mkfs)/m);
    expect(node.log()).not.to.contain("put-parameter");
    expect(calls(node, "kubeadm")).to.deep.equal([
      `kubeadm init --config ${node.root}/etc/kubernetes/kubeadm.yaml --ignore-preflight-errors=DirAvailable--var-lib-etcd-data`,
    ]);
    expect(node.log()).to.contain(`member update 8e9e05c52164694d --peer-urls=https://${MEMBER_NAME}:2380\n`);
    expect(node.file("var/lib/etcd/data/member/snap/db")).to.equal("data");
    // Without the ignored check, kubeadm init refuses the member's data (among what the rejoin left).
    const config = join(node.root, "etc/kubernetes/kubeadm.yaml");
    const plain = await run(join(node.dir, "bin/kubeadm"), ["init", "--config", config], node.env);
    expect(plain.status).to.equal(1);
    expect(plain.stderr).to.contain("[ERROR DirAvailable--var-lib-etcd-data]: /var/lib/etcd/data is not empty");
  });

  it("kubeadm's preflight refuses a control-plane join onto a member's data (the bootstrap before volumes)", async () => {
    zone = "us-east-1b";
    const spec = specWith({ controlPlane: { count: 3 } });
    const { node, service } = await boot(userDataFor(spec, "control-plane-us-east-1b"));
    expect(service.status, service.stderr).to.equal(0);
    mkdirSync(join(node.root, "var/lib/etcd/data/member"), { recursive: true });
    // The bootstrap before etcd volumes joined whenever the API answered: onto a member's data, kubeadm fails.
    const config = join(node.root, "etc/kubernetes/kubeadm.yaml");
    const r = await run(join(node.dir, "bin/kubeadm"), ["join", "--config", config], node.env);
    expect(r.status).to.equal(1);
    expect(r.stderr).to.contain("[ERROR DirAvailable--var-lib-etcd-data]: /var/lib/etcd/data is not empty");
  });

  it("the cluster exists, no member answers and no volume data survives: the newest snapshot is restored", async () => {
    const { node, service } = await boot(
      userDataFor(specWith({}), FIRST),
      { ...NO_API, STANDIN_NEWEST_SNAPSHOT: "etcd/20260101T000000Z.db" },
      1,
      { parameters: OTHERS_RECORD },
    );
    expect(service.status, service.stderr).to.equal(0);
    const log = lines(node);
    // Restored by etcdutl of the etcd image kubeadm is about to run (kubeadm's for this release: no manifest yet).
    const restore = log.findIndex((l) => /^etcdutl snapshot restore \S+ --data-dir \S+\/var\/lib\/etcd\/data /.test(l));
    expect(restore, node.log()).to.be.greaterThan(0);
    const version = header(userDataFor(specWith({}), FIRST), "KUBERNETES_VERSION");
    const listed = log.indexOf(`kubeadm config images list --kubernetes-version v${version}`);
    expect(listed).to.be.within(0, restore);
    expect(
      log.slice(listed, restore).some((l) => /^ctr -n k8s.io images pull registry\.k8s\.io\/etcd:/.test(l)),
    ).to.equal(true);
    expect(log[restore]).to.contain(`--initial-advertise-peer-urls https://${MEMBER_NAME}:2380`);
    expect(node.log()).to.contain(
      "aws s3 cp --region us-east-1 --only-show-errors s3://etcd-backups-test/etcd/20260101T000000Z.db",
    );
    const init = log.findIndex((l) => l.startsWith("kubeadm init"));
    expect(init).to.be.greaterThan(restore);
    expect(log[init]).to.match(/--ignore-preflight-errors=DirAvailable--var-lib-etcd-data$/);
    expect(node.log()).not.to.contain("put-parameter");
  });

  const RESTORE = { ...NO_API, STANDIN_NEWEST_SNAPSHOT: "etcd/20260101T000000Z.db" };
  const restoreCalls = (node: Node) => lines(node).filter((l) => / snapshot restore /.test(l));

  it("an etcd image without etcdutl (etcd 3.5, as the Kubernetes image was built): its etcdctl restores", async () => {
    const image = { STANDIN_ETCD_IMAGE_TOOLS: "etcdctl", STANDIN_ETCDCTL_VERSION: "3.5" };
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), { ...RESTORE, ...image }, 1, {
      parameters: OTHERS_RECORD,
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(restoreCalls(node)).to.have.length(1);
    expect(restoreCalls(node)[0]).to.match(/^etcdctl snapshot restore \S+ --data-dir \S+\/var\/lib\/etcd\/data /);
    expect(calls(node, "kubeadm init")).to.have.length(1);
  });

  it("an etcd image whose etcdctl cannot restore and without etcdutl: the restore fails, saying why", async () => {
    const image = { STANDIN_ETCD_IMAGE_TOOLS: "etcdctl", STANDIN_ETCDCTL_VERSION: "3.6" };
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), { ...RESTORE, ...image }, 1, {
      parameters: OTHERS_RECORD,
    });
    expect(service.status).to.equal(1);
    expect(service.stderr).to.contain("the etcd image has no etcdutl, and its etcdctl cannot restore snapshots");
    expect(calls(node, "kubeadm init")).to.deep.equal([]);
  });

  it("the etcd image already in the kubelet's store (pulled through a mirror): its tools are used without a pull", async () => {
    const version = header(userDataFor(specWith({}), FIRST), "KUBERNETES_VERSION");
    const probe = await boot(userDataFor(specWith({}), FIRST), RESTORE, 1, { parameters: OTHERS_RECORD });
    const pulled = calls(probe.node, "ctr -n k8s.io images pull").map((l) => l.split(" ").at(-1)!);
    expect(pulled, version).to.have.length(1);
    const { node, service } = await boot(
      userDataFor(specWith({}), FIRST),
      { ...RESTORE, STANDIN_IMAGES_PRESENT: pulled[0], STANDIN_REGISTRY_UNREACHABLE: "1" },
      1,
      { parameters: OTHERS_RECORD },
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(calls(node, "ctr -n k8s.io images pull")).to.deep.equal([]);
    expect(restoreCalls(node)[0]).to.match(/^etcdutl snapshot restore /);
  });

  it("never restores while another member's volume may hold its data, attached or not: that member comes back instead", async () => {
    // A member volume of another zone, detached (its instance is being replaced right now) and tagged member;
    // or attached to an instance and without the tag (a member from before the tag).
    for (const other of ["vol-0b\tavailable\tNone\tmember", "vol-0c\tin-use\ti-0ccccccccccccccc\tNone"]) {
      const { node, service } = await boot(
        userDataFor(specWith({}), FIRST),
        { ...NO_API, STANDIN_NEWEST_SNAPSHOT: "etcd/20260101T000000Z.db", STANDIN_OTHER_VOLUMES: other },
        1,
        { parameters: OTHERS_RECORD },
      );
      expect(service.status, other).to.equal(1);
      expect(node.log(), other).not.to.contain("snapshot restore");
      expect(node.log(), other).not.to.match(/^kubeadm init/m);
      expect(service.stderr, other).to.contain("may hold a member's data");
      expect(service.stderr, other).to.contain("did not answer");
      // Its own new, empty volume is tagged joining, never member.
      expect(
        calls(node, "aws ec2 create-tags").map((l) => l.split("Value=")[1]),
        other,
      ).to.deep.equal(["joining"]);
    }
  });

  it("restores when the other member volumes hold no member's data (removed, joining, or never used)", async () => {
    const others = [
      "vol-0b\tavailable\tNone\tremoved",
      "vol-0c\tin-use\ti-0c\tjoining",
      "vol-0d\tavailable\tNone\tNone",
    ];
    const { node, service } = await boot(
      userDataFor(specWith({}), FIRST),
      { ...NO_API, STANDIN_NEWEST_SNAPSHOT: "etcd/20260101T000000Z.db", STANDIN_OTHER_VOLUMES: others.join("\n") },
      1,
      { parameters: OTHERS_RECORD },
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(node.log()).to.contain("snapshot restore");
    // The restored member's data is on the volume: marked member, after kubeadm.
    const log = lines(node);
    const tag = log.indexOf(
      "aws ec2 create-tags --region us-east-1 --resources vol-0123456789abcdef0 --tags Key=cilium-cluster/etcd-state,Value=member",
    );
    expect(tag).to.be.greaterThan(log.findIndex((l) => l.startsWith("kubeadm init")));
  });

  it("every volume lost, three nodes: the others tag their new volumes as they mount them, and the init zone's node restores", async () => {
    const spec = specWith({ controlPlane: { count: 3 } });
    const snapshot = { STANDIN_NEWEST_SNAPSHOT: "etcd/20260101T000000Z.db" };
    // The nodes of zones b and c attach new, empty volumes and wait for an API that never answers.
    const others: string[] = [];
    for (const [i, z] of ["us-east-1b", "us-east-1c"].entries()) {
      zone = z;
      const { node, service } = await boot(userDataFor(spec, `control-plane-${z}`), { ...NO_API, ...snapshot }, 1, {
        parameters: OTHERS_RECORD,
      });
      expect(service.status, z).to.equal(1);
      expect(service.stderr, z).to.contain("did not answer");
      const log = lines(node);
      const tag = log.indexOf(
        "aws ec2 create-tags --region us-east-1 --resources vol-0123456789abcdef0 --tags Key=cilium-cluster/etcd-state,Value=joining",
      );
      expect(tag, `${z}: its empty volume tagged joining`).to.be.greaterThan(
        log.findIndex((l) => l.startsWith("mount ")),
      );
      const state = readFileSync(join(node.state, "volume-state-tag"), "utf8").trim();
      others.push(`vol-0${"bc"[i]}\tin-use\ti-0${"bc"[i]}\t${state}`);
    }
    zone = "us-east-1a";
    const { node, service } = await boot(
      userDataFor(spec, FIRST),
      { ...NO_API, ...snapshot, STANDIN_OTHER_VOLUMES: others.join("\n") },
      1,
      { parameters: OTHERS_RECORD },
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(node.log()).to.contain("snapshot restore");
    expect(calls(node, "kubeadm init")).to.have.length(1);
  });

  it("a survivor's volume is tagged member as it is mounted, before its node waits for anything", async () => {
    zone = "us-east-1b";
    const { node, service } = await boot(
      userDataFor(specWith({ controlPlane: { count: 3 } }), "control-plane-us-east-1b"),
      { STANDIN_VOLUME_FORMATTED: "1" },
      6,
      { parameters: OTHERS_RECORD, files: { "var/lib/etcd/data/member/snap/db": "data" } },
    );
    expect(service.status, service.stderr).to.equal(0);
    const log = lines(node);
    const tags = calls(node, "aws ec2 create-tags").map((l) => l.split("Value=")[1]);
    expect(tags).to.deep.equal(["member"]);
    const tag = log.findIndex((l) => l.startsWith("aws ec2 create-tags"));
    expect(tag).to.be.within(
      log.findIndex((l) => l.startsWith("mount ")),
      log.findIndex((l) => l.startsWith("kubeadm")),
    );
  });

  it("a removed member's volume attached again: its data is set aside, kept, and the node joins as a new member", async () => {
    zone = "us-east-1b";
    const spec = specWith({ controlPlane: { count: 3 } });
    const { node, service } = await boot(
      userDataFor(spec, "control-plane-us-east-1b"),
      { STANDIN_VOLUME_FORMATTED: "1", STANDIN_VOLUME_STATE_TAG: "removed" },
      6,
      {
        parameters: OTHERS_RECORD,
        files: {
          "var/lib/etcd/data/member/snap/db": "stale",
          // What an earlier removal of this volume's member set aside: only the newest copy is kept.
          "var/lib/etcd/removed-20250101T000000Z/member/snap/db": "older",
        },
      },
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(calls(node, "kubeadm")).to.deep.equal([`kubeadm join --config ${node.root}/etc/kubernetes/kubeadm.yaml`]);
    const aside = readdirSync(join(node.root, "var/lib/etcd")).filter((d) => d.startsWith("removed-"));
    expect(aside).to.have.length(1);
    expect(aside[0]).to.match(/^removed-\d{8}T\d{6}Z$/);
    expect(aside[0]).not.to.equal("removed-20250101T000000Z");
    expect(node.file(`var/lib/etcd/${aside[0]}/member/snap/db`)).to.equal("stale");
    const tags = calls(node, "aws ec2 create-tags").map((l) => l.split("Value=")[1]);
    expect(tags).to.deep.equal(["joining", "member"]);
  });

  it("a member tag that fails after kubeadm: the next run tags again, without undoing the join", async () => {
    // Every try of the first run fails (BOOTSTRAP_TRIES, 8); the next run's succeeds.
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), {
      STANDIN_API_READY_AFTER: NEVER,
      STANDIN_MEMBER_TAG_FAILURES: "8",
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(2);
    expect(calls(node, "kubeadm")).to.deep.equal([`kubeadm init --config ${node.root}/etc/kubernetes/kubeadm.yaml`]);
    expect(service.stderr).not.to.contain("undoing");
    expect(readFileSync(join(node.state, "volume-state-tag"), "utf8").trim()).to.equal("member");
    expect(node.exists(JOINED_MARKER)).to.equal(true);
  });

  it("an init that stopped half-way is undone and run again: the init record is its own", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), {
      STANDIN_API_READY_AFTER: NEVER,
      STANDIN_KUBEADM_FAILURES: "1",
    });
    expect(service.status, service.stderr).to.equal(0);
    // The init stops half-way; the next run undoes it and fails; the third inits again.
    expect(service.runs).to.equal(3);
    const init = `kubeadm init --config ${node.root}/etc/kubernetes/kubeadm.yaml`;
    expect(calls(node, "kubeadm")).to.deep.equal([init, init]);
    expect(service.stderr).to.contain("kubeadm stopped half-way before: undoing what it left");
    // The volume was attached once; later runs found it mounted. The record was created once.
    expect(calls(node, "aws ec2 attach-volume")).to.have.length(1);
    expect(readFileSync(recordFile(node), "utf8")).to.match(/^i-0123456789abcdef0 /);
    expect(node.exists(JOINED_MARKER)).to.equal(true);
  });

  const indexOf = (node: Node, prefix: string) => lines(node).findIndex((l) => l.startsWith(prefix));
  const JOINING = "control-plane-us-east-1b";

  it("points its member's name at itself, and waits until Route53 has it, before kubeadm on every path", async () => {
    const rejoin = { parameters: OTHERS_RECORD, files: { "var/lib/etcd/data/member/snap/db": "data" } };
    const paths: [string, string, Record<string, string>, Pick<Options, "parameters" | "files">][] = [
      ["init", "us-east-1a", { STANDIN_API_READY_AFTER: NEVER }, {}],
      ["init", "us-east-1a", { ...NO_API, STANDIN_VOLUME_FORMATTED: "1" }, rejoin],
      ["join", "us-east-1b", {}, {}],
    ];
    for (const [kubeadm, at, env, before] of paths) {
      zone = at;
      const spec = specWith({ controlPlane: { count: 3 } });
      const { node, service } = await boot(
        userDataFor(spec, `control-plane-${at}`),
        { ...env, STANDIN_ROUTE53_PENDING: "2" },
        1,
        before,
      );
      expect(service.status, service.stderr).to.equal(0);
      const upsert = indexOf(node, "aws route53 change-resource-record-sets");
      const batch = JSON.parse(/--change-batch (\{.*\}) --query/.exec(lines(node)[upsert])![1]);
      expect(lines(node)[upsert]).to.contain("--region us-east-1 --hosted-zone-id ZTEST ");
      expect(batch.Changes).to.deep.equal([
        {
          Action: "UPSERT",
          ResourceRecordSet: {
            Name: `etcd-${at}.internal.dev.k8s.local`,
            Type: "A",
            TTL: ETCD_MEMBER_RECORD_TTL,
            ResourceRecords: [{ Value: "10.0.12.34" }],
          },
        },
      ]);
      // PENDING twice, then INSYNC: kubeadm starts etcd only after the third answer.
      const asks = lines(node).flatMap((l, i) =>
        l.startsWith("aws route53 get-change --region us-east-1 --id /change/") ? [i] : [],
      );
      expect(asks, at).to.have.length(3);
      expect(upsert).to.be.within(0, asks[0]);
      expect(asks[2]).to.be.below(indexOf(node, `kubeadm ${kubeadm}`));
    }
  });

  it("a joined member moves to its name only when its peer certificate carries it", async () => {
    zone = "us-east-1b";
    const spec = specWith({ controlPlane: { count: 3 } });
    const name = "etcd-us-east-1b.internal.dev.k8s.local";
    // The cluster's stored ClusterConfiguration (kubeadm join issues from it) predates the names.
    const before = await boot(userDataFor(spec, JOINING), {}, 1, { parameters: OTHERS_RECORD });
    expect(before.service.status, before.service.stderr).to.equal(0);
    expect(before.node.log()).not.to.contain("member update");
    expect(before.service.stderr).to.contain(`peer certificate does not name ${name}: it keeps its address`);
    const names = spec.network.availabilityZones.slice(0, 3).map((z) => `etcd-${z}.internal.dev.k8s.local`);
    const after = await boot(userDataFor(spec, JOINING), { STANDIN_CLUSTER_PEER_CERT_SANS: names.join(",") }, 1, {
      parameters: OTHERS_RECORD,
    });
    expect(after.service.status, after.service.stderr).to.equal(0);
    expect(after.node.log()).to.contain(`member update 8e9e05c52164694d --peer-urls=https://${name}:2380\n`);
  });

  it("a control-plane node that joined a cluster without the init record creates it, after the join", async () => {
    zone = "us-east-1b";
    const spec = specWith({ controlPlane: { count: 3 } });
    const { node, service } = await boot(userDataFor(spec, JOINING));
    expect(service.status, service.stderr).to.equal(0);
    expect(indexOf(node, "aws ssm put-parameter")).to.be.above(indexOf(node, "kubeadm join"));
    expect(readFileSync(recordFile(node), "utf8")).to.match(/^i-0123456789abcdef0 /);
    // The record exists: the join leaves it alone.
    const other = await boot(userDataFor(spec, JOINING), {}, 1, { parameters: OTHERS_RECORD });
    expect(other.service.status, other.service.stderr).to.equal(0);
    expect(other.node.log()).not.to.contain("put-parameter");
  });
});
