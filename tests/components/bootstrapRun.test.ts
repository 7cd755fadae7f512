// The bootstrap run for real: bash executes the rendered user data and then the bootstrap service on a
// scratch node (tests/standins/node.ts), against a kubeadm stand-in that enforces kubeadm's preflight.
import { expect } from "chai";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "fs";
import { Server } from "http";
import { join } from "path";
import { parseAllDocuments } from "yaml";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { BOOTSTRAP_SCRIPT, JOINED_MARKER } from "../../components/nodes/systemdUnits";
import { renderUserData } from "../../components/nodes/userData";
import { examples, GOLDEN_DIR } from "../../plan/examples";
import type { ClusterSpec } from "../../spec/types";
import { requireDebianTool } from "../debianTools";
import { specWith } from "../fixtures";
import { makeSecrets, newNode, Node, run, runService, runUserData, startImds } from "../standins/node";

const NEVER = "1000000";
let zone = "us-east-1a";
let imds: Server;
let imdsUrl: string;
let secrets: { dir: string; caHash: string };

const userDataFor = (spec: ClusterSpec, group: string) =>
  renderUserData(
    bootstrapConfig(
      spec,
      instanceGroups(spec).find((g) => g.name === group)!,
      {
        internal: "api.example.test",
        public: "api.example.com",
      },
    ),
  );

const header = (userData: string, name: string) => new RegExp(`^\\s*${name}='([^']*)'$`, "m").exec(userData)![1];

/** Installs the user data on a fresh node and runs the bootstrap service until it succeeds. */
async function boot(userData: string, env: Record<string, string> = {}, runs = 6) {
  const node = newNode({
    imdsUrl,
    secrets: secrets.dir,
    kubernetesVersion: header(userData, "KUBERNETES_VERSION"),
    env,
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

describe("node bootstrap, run as cloud-init and systemd run it", function () {
  this.timeout(180000);

  before(async function () {
    requireDebianTool(this, "openssl", "openssl");
    ({ server: imds, url: imdsUrl } = await startImds(() => zone));
    secrets = makeSecrets();
  });
  after(() => imds?.close());
  beforeEach(() => (zone = "us-east-1a"));

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
    for (const key of ["ca.key", "sa.key", "front-proxy-ca.key", "etcd/ca.key"]) {
      expect(readFileSync(join(node.root, "etc/kubernetes/pki", key)).length, key).to.be.greaterThan(0);
    }
    expect(calls(node, "systemctl")).to.include("systemctl enable --now kubeadm-leave.service");
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
    // The join that stopped half-way fails the run; the next run resets it and fails; the third joins.
    expect(service.runs).to.equal(3);
    expect(calls(node, "kubeadm").map((l) => l.split(" ")[1])).to.deep.equal(["join", "reset", "join"]);
    expect(service.stderr).to.contain("try 3 of apt-get -o failed");
    expect(service.stderr).to.contain("try 1 of aws ssm failed");
    expect(service.stderr).to.match(/step packages: start[\s\S]*step packages: done/);
    expect(node.exists(JOINED_MARKER)).to.equal(true);

    const before = node.snapshot();
    const again = await runService(node, 1);
    expect(again.status, again.stderr).to.equal(0);
    expect(again.stderr).to.contain("joined with this configuration before: nothing to do");
    expect(calls(node, "kubeadm")).to.have.length(3);
    expect(node.snapshot()).to.deep.equal(before);
  });

  it("a step that fails after the join runs again: the joined marker is written only once every step succeeded", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "control-plane-us-east-1a"), {
      STANDIN_API_READY_AFTER: NEVER,
      STANDIN_LEAVE_ENABLE_FAILURES: "1",
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(2);
    expect(calls(node, "systemctl enable --now")).to.deep.equal(
      Array(2).fill("systemctl enable --now kubeadm-leave.service"),
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
    // Restarted with the same configuration: nothing to do. Reset since it joined (a control-plane node's
    // kubeadm-leave at a reboot): it joins again, and the instance, InService, has no hook to complete.
    const again = await runService(node, 1);
    expect(again.status, again.stderr).to.equal(0);
    expect((await run("kubeadm", ["reset", "--force"], node.env)).status).to.equal(0);
    const rejoined = await runService(node, 1);
    expect(rejoined.status, rejoined.stderr).to.equal(0);
    expect(rejoined.stderr).to.contain("is InService: no launch hook to complete");
    expect(calls(node, "kubeadm").filter((l) => l.startsWith("kubeadm join"))).to.have.length(2);
    expect(completions(node)).to.have.length(3);
  });
});
