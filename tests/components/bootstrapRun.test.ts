// The bootstrap run for real: bash executes the rendered user data and then the bootstrap service on a
// scratch node (tests/standins/node.ts), against a kubeadm stand-in that enforces kubeadm's preflight.
import { expect } from "chai";
import { secretsKeyAlias } from "../../components/nodes/secretPaths";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "fs";
import { join } from "path";
import { parse, parseAllDocuments } from "yaml";
import { CLUSTER_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { JOIN_CREDENTIAL_FILE, JOINED_MARKER } from "../../components/nodes/nodeFacts";
import { BOOTSTRAP_SCRIPT } from "../../components/nodes/systemdUnits";
import { renderUserData } from "../../components/nodes/userData";
import { examples, GOLDEN_DIR } from "../../cli/plan/examples";
import type { ClusterSpec } from "../../config/types";
import { requireDebianTool } from "../debianTools";
import { specWith } from "../fixtures";
import { KUBEADM_PKI_PATH } from "../standins/pki";
import { LATEST_SNAPSHOT_KEY, SHARED_PKI_FILES } from "../../components/nodes/controlPlaneNames";
import { AwsFake, startAws } from "../standins/aws";
import {
  credentialParameter,
  headerValue as header,
  makeSecrets,
  newNode,
  Node,
  NODE_INSTANCE,
  Options,
  run,
  runService,
  runScript,
  runUserData,
  storeClusterKeys,
} from "../standins/node";
import { bootstrapObjectKey, sha256Hex } from "../../components/nodes/bootstrapBundle";
import { filesOf, renderLoader } from "../../components/nodes/userData";
import { DRAIN_LIFECYCLE_HOOK, LAUNCH_HOOK_NAME } from "../../components/nodes/lifecycleHooks";

const NEVER = "1000000";
let zone = "us-east-1a";
let secrets: { dir: string };

/** The init record this test's control-plane nodes are told. */
const INIT_RECORD = "/cilium-cluster/dev.k8s.local/control-plane/initialized-test";
/** Where npm run restore-snapshot names a snapshot for them. */
const RESTORE_REQUEST = "/cilium-cluster/dev.k8s.local/control-plane/restore-request-test";

const userDataFor = (spec: ClusterSpec, group: string) =>
  renderUserData(
    bootstrapConfig(
      spec,
      instanceGroups(spec).find((g) => g.name === group)!,
      { internal: "api.example.test", public: "api.example.com", caParameter: "/cluster-ca" },
      {
        initRecord: INIT_RECORD,
        restoreRequest: RESTORE_REQUEST,
        backupBucket: "etcd-backups-test",
        encryptionKeys: "/encryption-keys",
        sharedPki: "/pki/",
        adminRoleArn: "arn:aws:iam::000000000000:role/admins.dev.k8s.local",
      },
    ),
  );

/** The init record, as SSM holds it. */
const initRecord = (node: Node) => node.aws.parameters.get(INIT_RECORD)?.value ?? "";

/** The node's instance's lifecycle state in its Auto Scaling group. */
const lifecycle = (node: Node) => node.instance.lifecycleState;

/** What is in place before the node launches: files on its volume, and its account's state. */
type Before = Pick<Options, "files" | "clusterKeysStored"> & { aws?: (aws: AwsFake) => void };

/** A fresh node, its instance launched in an account of its own, in `zone`. */
async function launch(userData: string, env: Record<string, string> = {}, before: Before = {}) {
  const aws = await startAws();
  const node = newNode({
    aws,
    userData,
    secrets: secrets.dir,
    zone,
    env,
    files: before.files,
    clusterKeysStored: before.clusterKeysStored,
  });
  before.aws?.(aws);
  return node;
}

/** Installs the user data on a fresh node and runs the bootstrap service until it succeeds. */
async function boot(userData: string, env: Record<string, string> = {}, runs = 6, before: Before = {}) {
  const node = await launch(userData, env, before);
  const installed = await runUserData(node);
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

/** The line number in the stand-ins' log of the first call that starts with `prefix`. */
const indexOfCall = (node: Node, prefix: string) =>
  node
    .log()
    .split("\n")
    .findIndex((l) => l.startsWith(`${prefix} `));

/**
 * kubeadm's init, join and reset runs: the bootstrap tokens' retirement (`kubeadm token`) and the
 * credentials a control-plane node signs (`kubeadm kubeconfig user`: its own to join, an admin one to read
 * the cluster's release) are checked on their own.
 */
const kubeadmRuns = (node: Node) =>
  calls(node, "kubeadm").filter((l) => !l.startsWith("kubeadm token ") && !l.startsWith("kubeadm kubeconfig user "));

/** The machine around a node: the cluster's secrets, the node's zone. */
function standInMachine(): void {
  before(function () {
    requireDebianTool(this, "openssl", "openssl");
    secrets = makeSecrets();
  });
  beforeEach(() => (zone = "us-east-1a"));
}

describe("node bootstrap, run as cloud-init and systemd run it", function () {
  this.timeout(180000);

  standInMachine();

  it("user data installs the bootstrap as a service and starts it without blocking cloud-init", async () => {
    const node = await launch(userDataFor(specWith({}), "nodes"));
    expect((await runUserData(node)).status).to.equal(0);
    expect(node.exists(BOOTSTRAP_SCRIPT)).to.equal(true);
    expect(calls(node, "systemctl")).to.deep.equal([
      "systemctl daemon-reload",
      "systemctl enable cilium-cluster-bootstrap.service",
      "systemctl start --no-block cilium-cluster-bootstrap.service",
    ]);
    expect(calls(node, "kubeadm")).to.deep.equal([]);
  });

  it("user data is a loader: it runs the group's installer from the bootstrap bucket, only with the plan's digest", async () => {
    const installer = userDataFor(specWith({}), "nodes");
    const target = {
      instanceGroup: "nodes",
      region: "us-east-1",
      bucket: "bootstrap-test",
      key: bootstrapObjectKey("node", installer),
      sha256: sha256Hex(installer),
    };
    const loader = renderLoader(target);
    const fetched = (node: Node) =>
      node.aws.calls.filter((c) => c.action === "s3:GetObject" && c.params.Key === target.key).length;

    const node = await launch(installer);
    node.aws.objects.set(`${target.bucket}/${target.key}`, Buffer.from(installer));
    const loaded = await runScript(node, loader);
    expect(loaded.status, loaded.stderr).to.equal(0);
    expect(fetched(node)).to.equal(1);
    expect(node.file(BOOTSTRAP_SCRIPT)).to.equal(filesOf(installer)[BOOTSTRAP_SCRIPT]);
    expect(calls(node, "systemctl")).to.include("systemctl start --no-block cilium-cluster-bootstrap.service");

    // Another script under that key (a bucket written by someone else): never run, fetched again and again.
    const tampered = await launch(installer);
    tampered.aws.objects.set(
      `${target.bucket}/${target.key}`,
      Buffer.from(installer.replace("set -euo pipefail", 'set -euo pipefail\ntouch "$root/tampered"')),
    );
    const refused = await runScript(tampered, loader, { LOADER_RETRY_SECONDS: "0.2" }, 3000);
    expect(refused.status, "still trying when stopped").to.equal(null);
    expect(fetched(tampered)).to.be.greaterThan(2);
    expect(tampered.exists("tampered")).to.equal(false);
    expect(tampered.exists(BOOTSTRAP_SCRIPT)).to.equal(false);
  });

  for (const example of examples()) {
    it(`every group of ${example.name} joins against kubeadm's contract`, async () => {
      const dir = join(GOLDEN_DIR, example.name, "bootstrap");
      for (const file of readdirSync(dir)) {
        const userData = readFileSync(join(dir, file), "utf8");
        const role = header(userData, "ROLE");
        const group = header(userData, "INSTANCE_GROUP");
        zone = role === "control-plane" ? group.replace(/^control-plane-/, "") : header(userData, "INIT_ZONE");
        const creates = role === "control-plane" && zone === header(userData, "INIT_ZONE");
        const { node, service } = await boot(userData, { STANDIN_API_READY_AFTER: creates ? NEVER : "0" });
        expect(service.status, `${file}\n${service.stderr}`).to.equal(0);
        expect(service.runs, file).to.equal(1);
        expect(kubeadmRuns(node), file).to.deep.equal([
          `kubeadm ${creates ? "init --skip-token-print" : "join"} --config ${node.root}/etc/kubernetes/kubeadm.yaml`,
        ]);
        // A control-plane node retires every bootstrap token; a joining one signs its own credential to join,
        // a worker reads the one issued to its instance.
        expect(calls(node, "kubeadm token list"), file).to.have.length(role === "control-plane" ? 1 : 0);
        const ownCredential = calls(node, "kubeadm kubeconfig user").filter((l) => l.includes(" system:nodes "));
        expect(ownCredential, file).to.have.length(role === "control-plane" && !creates ? 1 : 0);
        expect(node.exists(JOIN_CREDENTIAL_FILE), file).to.equal(false);
        expect(node.exists(JOINED_MARKER), file).to.equal(true);
        expect(calls(node, "aws autoscaling complete-lifecycle-action"), file).to.have.length(1);
        for (const line of calls(node, "apt-get")) expect(line, file).to.contain("-o DPkg::Lock::Timeout=600");
      }
    });
  }

  it("a worker reads only its own instance's credential and the CA's certificate, joins with them as kubeadm's discovery file, and keeps them nowhere", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"));
    expect(service.status, service.stderr).to.equal(0);
    const fetched = calls(node, "aws ssm").map((l) => /--name (\S+)/.exec(l)![1]);
    const own = credentialParameter("dev.k8s.local", NODE_INSTANCE.id);
    expect([...new Set(fetched)]).to.deep.equal([own, "/cluster-ca"]);
    const join = kubeadmDocument(node, "JoinConfiguration");
    expect(join.discovery).to.deep.equal({ file: { kubeConfigPath: JOIN_CREDENTIAL_FILE } });
    // Gone once kubeadm has read it, with the configuration; never on a command line.
    expect(node.exists(JOIN_CREDENTIAL_FILE)).to.equal(false);
    expect(node.exists("etc/kubernetes/kubeadm.yaml")).to.equal(false);
    // The key's body, and the same base64-encoded as the kubeconfig holds it, are in no log.
    const pem = node.aws.parameters.get(own)!.value;
    const key = /-----BEGIN [A-Z ]*PRIVATE KEY-----\n[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/.exec(pem)![0];
    expect(node.log()).not.to.contain(key.split("\n")[1]);
    expect(node.log()).not.to.contain(Buffer.from(`${key}\n`).toString("base64").slice(0, 64));
    expect(join).not.to.have.property("controlPlane");
    expect(join.nodeRegistration.taints).to.deep.equal([]);
    // Named as EC2 names the instance (the AWS cloud controller manager finds it by that name), not after the
    // short host name Ubuntu sets.
    expect(join.nodeRegistration.name).to.equal("ip-10-0-12-34.ec2.internal");
    // ENI mode: the kubelet's node IP from metadata, max pods from t3.large's ENIs less Cilium's two addresses.
    expect(join.nodeRegistration.kubeletExtraArgs).to.deep.equal([
      { name: "cloud-provider", value: "external" },
      { name: "node-ip", value: "10.0.12.34" },
    ]);
    expect(node.file("etc/kubernetes/patches/kubeletconfiguration+merge.yaml")).to.equal(
      "providerID: aws:///us-east-1a/i-0123456789abcdef0\nmaxPods: 33\n",
    );
    expect(node.file("etc/systemd/network/75-cilium-eni-secondary.network")).to.contain("Property=!INTERFACE=ens5");
    expect(node.file("etc/cloud/cloud.cfg.d/99-disable-network-hotplug.cfg")).to.contain("boot-new-instance");
    // The tools kubeadm's preflight wants, installed.
    expect(calls(node, "apt-get").join("\n")).to.match(/install -y .*conntrack.*socat/);
  });

  it("a worker's credential is on disk, root's alone, only while kubeadm join runs: killed there, the next run joins and removes it", async () => {
    const own = credentialParameter("dev.k8s.local", NODE_INSTANCE.id);
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), { STANDIN_KILL_AT: "kubeadm join" }, 1);
    expect(existsSync(join(node.state, "killed")), "killed").to.equal(true);
    expect(service.status).to.not.equal(0);
    // What the control plane issued, the CA's certificate and the API's address, as kubeadm's discovery file.
    const discovery = parse(node.file(JOIN_CREDENTIAL_FILE));
    const decoded = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
    const user = discovery.users[0].user;
    expect(decoded(user["client-certificate-data"]) + decoded(user["client-key-data"])).to.equal(
      `${node.aws.parameters.get(own)!.value}\n`,
    );
    expect(discovery.clusters[0].cluster.server).to.equal(
      `https://${header(node.userData, "API_ENDPOINT")}:${header(node.userData, "API_PORT")}`,
    );
    expect(decoded(discovery.clusters[0].cluster["certificate-authority-data"])).to.equal(
      `${node.aws.parameters.get("/cluster-ca")!.value}\n`,
    );
    expect(statSync(join(node.root, JOIN_CREDENTIAL_FILE)).mode & 0o777).to.equal(0o600);
    const again = await runService(node, 1);
    expect(again.status, again.stderr).to.equal(0);
    expect(calls(node, "kubeadm join")).to.have.length(2);
    expect(node.exists(JOIN_CREDENTIAL_FILE)).to.equal(false);
    expect(node.exists(JOINED_MARKER)).to.equal(true);
  });

  it("a worker waits for its credential while the control plane has not issued it yet, and never joins without it", async () => {
    const own = credentialParameter("dev.k8s.local", NODE_INSTANCE.id);
    // Issued after the worker's third look.
    let issued = "";
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), {}, 1, {
      aws: (aws) => {
        issued = aws.parameters.get(own)!.value;
        aws.parameters.delete(own);
        let looks = 0;
        aws.afterCall("ssm:GetParameter", (p) => {
          if (p.Name === own && ++looks === 3) aws.putParameter(own, issued);
        });
      },
    });
    expect(service.status, service.stderr).to.equal(0);
    const reads = node.aws.calls.filter((c) => c.action === "ssm:GetParameter" && c.params.Name === own);
    expect(reads.map((c) => c.refused ?? "ok")).to.deep.equal([
      "ParameterNotFound",
      "ParameterNotFound",
      "ParameterNotFound",
      "ok",
    ]);
    expect(lifecycle(node)).to.equal("InService");

    // Never issued (the control plane does not answer): the run fails after the credential wait's tries,
    // before kubeadm, and the launch hook stays uncompleted for the join deadline to abandon the instance.
    const never = await boot(userDataFor(specWith({}), "nodes"), { NODE_CREDENTIAL_WAIT_TRIES: "3" }, 1, {
      aws: (aws) => aws.parameters.delete(own),
    });
    expect(never.service.status).to.not.equal(0);
    const tries = never.node.aws.calls.filter((c) => c.action === "ssm:GetParameter" && c.params.Name === own);
    expect(tries.map((c) => c.refused)).to.deep.equal(Array(3).fill("ParameterNotFound"));
    expect(calls(never.node, "kubeadm")).to.deep.equal([]);
    expect(never.node.exists(JOIN_CREDENTIAL_FILE)).to.equal(false);
    expect(lifecycle(never.node)).to.equal("Pending:Wait");
  });

  it("ENI mode without kube-proxy: max pods adds back only the agent's host-network pod", async () => {
    const spec = specWith({ networking: { cilium: { enableNodePort: true } }, kubeProxy: { enabled: false } });
    const { node, service } = await boot(userDataFor(spec, "nodes"));
    expect(service.status, service.stderr).to.equal(0);
    // t3.large: 3 × (12 − 1) − 2 reserved + 1 (the agent) = 32, one fewer than with kube-proxy.
    expect(node.file("etc/kubernetes/patches/kubeletconfiguration+merge.yaml")).to.equal(
      "providerID: aws:///us-east-1a/i-0123456789abcdef0\nmaxPods: 32\n",
    );
  });

  it("other IPAM modes: neither --node-ip nor computed max pods, the providerID all the same", async () => {
    for (const ipam of ["", "crd"]) {
      const spec = specWith({ networking: { cilium: { ipam, disableMasquerade: false } } });
      const { node, service } = await boot(userDataFor(spec, "nodes"));
      expect(service.status, service.stderr).to.equal(0);
      expect(kubeadmDocument(node, "JoinConfiguration").nodeRegistration.kubeletExtraArgs, ipam).to.deep.equal([
        { name: "cloud-provider", value: "external" },
      ]);
      expect(node.file("etc/kubernetes/patches/kubeletconfiguration+merge.yaml"), ipam).to.equal(
        "providerID: aws:///us-east-1a/i-0123456789abcdef0\n",
      );
      expect(node.exists("etc/systemd/network/75-cilium-eni-secondary.network"), ipam).to.equal(false);
      expect(node.log()).not.to.contain("describe-instance-types");
    }
  });

  it("the first control-plane node creates the cluster when no API server answers", async () => {
    const spec = specWith({
      networking: { cilium: { ipam: "", disableMasquerade: false, enableNodePort: true } },
      kubeProxy: { enabled: false },
    });
    const { node, service } = await boot(
      userDataFor(spec, "control-plane-us-east-1a"),
      { STANDIN_API_READY_AFTER: NEVER },
      6,
      { clusterKeysStored: false },
    );
    expect(service.status, service.stderr).to.equal(0);
    const init = kubeadmDocument(node, "InitConfiguration");
    // No token of ours in kubeadm init (kubeadm's default one goes right after it).
    expect(init).not.to.have.property("bootstrapTokens");
    expect(init.skipPhases).to.deep.equal(["addon/kube-proxy"]);
    expect(init.nodeRegistration.taints).to.deep.equal([
      { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
    ]);
    const cluster = kubeadmDocument(node, "ClusterConfiguration");
    expect(cluster.networking).to.deep.equal({ serviceSubnet: "100.64.0.0/13", podSubnet: "100.96.0.0/11" });
    expect(cluster.apiServer.certSANs).to.deep.equal(["api.example.test", "api.example.com"]);
    // kubeadm's own images and stacked etcd: what `kubeadm config images list` names (the etcd tools' image).
    expect(cluster.imageRepository).to.equal(undefined);
    expect(cluster.etcd).to.equal(undefined);
    for (const key of ["ca.key", "sa.key", "front-proxy-ca.key", "etcd/ca.key"]) {
      expect(readFileSync(join(node.root, "etc/kubernetes/pki", key)).length, key).to.be.greaterThan(0);
    }
    // Before kubeadm, it made the Secrets encryption keys (no one had), then created the init record, without
    // --overwrite. After kubeadm init, it stored the keys kubeadm made, each under the cluster's key, and the
    // CA's certificate last, in the clear. Every value went through a file, never a command line. Nothing
    // else: no join token.
    const written = calls(node, "aws ssm put-parameter");
    const secure = (name: string, ...more: string[]) =>
      [
        `aws ssm put-parameter --region us-east-1 --name ${name} --type SecureString`,
        `--key-id ${secretsKeyAlias("dev.k8s.local")} --value file://<file>`,
        ...more,
      ].join(" ");
    const shared = ["ca.key", "front-proxy-ca.key", "front-proxy-ca.crt", "etcd/ca.key", "etcd/ca.crt", "sa.key"]
      .concat("sa.pub", "ca.crt")
      .map((f) => secure(`/pki/${f}`, "--overwrite"));
    expect(written.map((c) => c.replace(/file:\/\/\S+/, "file://<file>"))).to.deep.equal([
      secure("/encryption-keys"),
      `aws ssm put-parameter --region us-east-1 --name ${INIT_RECORD} --type String --value file://<file>`,
      ...shared,
      "aws ssm put-parameter --region us-east-1 --name /cluster-ca --type String --value file://<file> --overwrite",
    ]);
    for (const f of ["ca.key", "front-proxy-ca.key", "front-proxy-ca.crt", "etcd/ca.key", "etcd/ca.crt", "sa.key"]) {
      const made = node.file(`etc/kubernetes/pki/${f}`);
      expect(node.aws.parameters.get(`/pki/${f}`)?.value, f).to.equal(made.replace(/\n$/, ""));
      if (f.endsWith(".key")) expect(node.log(), f).not.to.contain(made.split("\n")[1]);
    }
    expect(node.aws.parameters.get("/cluster-ca")).to.deep.include({
      type: "String",
      value: node.file("etc/kubernetes/pki/ca.crt").replace(/\n$/, ""),
    });
    // After kubeadm init made them, before the node goes in service.
    const stored = indexOfCall(node, "aws ssm put-parameter --region us-east-1 --name /pki/ca.key");
    expect(stored).to.be.greaterThan(indexOfCall(node, "kubeadm init"));
    expect(stored).to.be.lessThan(indexOfCall(node, "aws autoscaling complete-lifecycle-action"));
    const keys = node.aws.parameters.get("/encryption-keys")?.value ?? "";
    expect(keys).to.match(/^key-\d{8}T\d{6}Z [A-Za-z0-9+/]{43}=$/);
    // The stand-ins' log of every command the bootstrap ran, with its arguments.
    expect(node.log()).to.not.contain(keys.split(" ")[1]);
    // The API server's configuration names a file only root reads, holding the key.
    expect(node.file("etc/kubernetes/apiserver/encryption.yaml")).to.contain(keys.split(" ")[1]);
    expect(initRecord(node)).to.match(/^i-0123456789abcdef0 \d{4}-/);
    // kubeadm init made its bootstrap token, printed nowhere (--skip-token-print); the next step deleted it,
    // by its id alone (the secret half on no command line), and the binding that approves a token holder's
    // certificate for any node name, before the node went in service.
    const deleted = calls(node, "kubeadm token delete");
    expect(deleted).to.have.length(1);
    expect(deleted[0]).to.match(/^kubeadm token delete [a-z0-9]{6} --kubeconfig \S+\/etc\/kubernetes\/admin\.conf$/);
    expect(readFileSync(join(node.state, "tokens"), "utf8")).to.equal("");
    const log = node.log().split("\n");
    const unbound = log.findIndex((l) =>
      / delete clusterrolebinding kubeadm:node-autoapprove-bootstrap --ignore-not-found$/.test(l),
    );
    expect(unbound).to.be.greaterThan(log.findIndex((l) => l.startsWith("kubeadm init ")));
    expect(unbound).to.be.lessThan(indexOfCall(node, "aws autoscaling complete-lifecycle-action"));
    // Its own API server answers the API's name through every phase of init: the load balancer has no
    // target in service until this instance completes its launch hook, last.
    expect(node.kubeadmHosts()[0]).to.match(/^127\.0\.0\.1 api\.example\.test # /);
    expect(cluster.controlPlaneEndpoint).to.equal("api.example.test:443");
    expect(init.localAPIEndpoint).to.deep.equal({ bindPort: 443 });
    // The etcd-leave service before kubeadm (a termination from then on removes the member), the others after.
    const systemctl = calls(node, "systemctl");
    const started = systemctl.indexOf(
      "systemctl enable --now etcd-backup.timer etcd-members.timer certificate-renewal.timer node-credentials.service kubelet-serving.service upgrade-finish.timer",
    );
    const armed = systemctl.indexOf("systemctl start --no-block etcd-leave.service");
    expect(armed).to.be.greaterThan(-1);
    expect(started).to.be.greaterThan(armed);
    expect(indexOfCall(node, "systemctl start --no-block etcd-leave.service")).to.be.lessThan(
      indexOfCall(node, "kubeadm init"),
    );
    expect(node.file("etc/systemd/system/etcd-backup.timer")).to.contain("OnUnitActiveSec=15min");
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
    const { node, service } = await boot(
      userDataFor(specWith({}), "nodes"),
      { STANDIN_APT_FAILURES: "3", STANDIN_API_READY_AFTER: "4", STANDIN_KUBEADM_FAILURES: "1" },
      6,
      { aws: (aws) => aws.throttle("ssm:GetParameter", 1) },
    );
    expect(service.status, service.stderr).to.equal(0);
    // The join that stopped half-way fails the run; the next run undoes it with kubeadm reset and fails; the
    // third joins.
    expect(service.runs).to.equal(3);
    expect(kubeadmRuns(node).map((l) => l.split(" ")[1])).to.deep.equal(["join", "reset", "join"]);
    // The held lock and the throttled read were retried within the first run: its packages are installed
    // and every secret it asked for was read in the end.
    expect(calls(node, "apt-get").length).to.be.greaterThan(3);
    expect(node.exists("usr/sbin/conntrack")).to.equal(true);
    const reads = node.aws.calls.filter((c) => c.action === "ssm:GetParameter");
    expect(reads.filter((c) => c.refused).map((c) => c.refused)).to.deep.equal(["ThrottlingException"]);
    expect(reads.filter((c) => !c.refused).map((c) => c.params.Name)).to.include(reads[0].params.Name);
    expect(node.exists(JOINED_MARKER)).to.equal(true);

    const before = node.snapshot();
    const again = await runService(node, 1);
    expect(again.status, again.stderr).to.equal(0);
    expect(kubeadmRuns(node)).to.have.length(3);
    expect(node.snapshot()).to.deep.equal(before);
  });

  it("a step that fails after the join runs again: the joined marker is written only once every step succeeded", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "control-plane-us-east-1a"), {
      STANDIN_API_READY_AFTER: NEVER,
      STANDIN_UNIT_ENABLE_FAILURES: "1",
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(2);
    expect(calls(node, "systemctl enable --now")).to.deep.equal(
      Array(2).fill(
        "systemctl enable --now etcd-backup.timer etcd-members.timer certificate-renewal.timer node-credentials.service kubelet-serving.service upgrade-finish.timer",
      ),
    );
    // kubeadm's own state says joined: the second run neither resets nor creates the cluster again.
    expect(kubeadmRuns(node).map((l) => l.split(" ")[1])).to.deep.equal(["init"]);
    expect(calls(node, "aws autoscaling complete-lifecycle-action")).to.have.length(1);
    expect(node.exists(JOINED_MARKER)).to.equal(true);
  });

  it("finishes what an interrupted dpkg left before apt-get installs anything", async () => {
    const node = await launch(userDataFor(specWith({}), "nodes"));
    // A node that lost power in the middle of an install: dpkg's journal holds the unfinished work.
    mkdirSync(join(node.root, "var/lib/dpkg/updates"), { recursive: true });
    writeFileSync(join(node.root, "var/lib/dpkg/updates/0001"), "Package: containerd\n");
    expect((await runUserData(node)).status).to.equal(0);
    const service = await runService(node, 2);
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(1);
    const log = node.log().split("\n");
    const configure = log.indexOf("dpkg --configure -a");
    expect(configure).to.be.greaterThan(-1);
    expect(configure).to.be.lessThan(log.findIndex((l) => l.startsWith("apt-get ")));
  });

  const completions = (node: Node) => calls(node, "aws autoscaling complete-lifecycle-action");

  it("a node that never gets its packages (the AWS CLI among them), or its kernel modules, never completes its launch hook", async () => {
    // The old join-deadline report needed `aws`, which a node whose apt fails never has: it reported nothing.
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), { STANDIN_APT_FAILURES: NEVER }, 3);
    expect(service.status).not.to.equal(0);
    expect(calls(node, "kubeadm")).to.deep.equal([]);
    expect(calls(node, "aws")).to.deep.equal([]);
    expect(completions(node)).to.deep.equal([]);
    expect(node.exists(JOINED_MARKER)).to.equal(false);
    // A kernel step that fails, before any package: nothing reaches Auto Scaling either, the hook abandons it.
    const kernel = await boot(userDataFor(specWith({}), "nodes"), { STANDIN_MODPROBE_MISSING: "br_netfilter" }, 2);
    expect(kernel.service.status).not.to.equal(0);
    expect(calls(kernel.node, "modprobe")).to.include("modprobe br_netfilter");
    expect(calls(kernel.node, "apt-get")).to.deep.equal([]);
    expect(completions(kernel.node)).to.deep.equal([]);
  });

  it("a joined node completes its launch hook once, after every other step, and never again", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), {}, 6, {
      aws: (aws) => aws.throttle("autoscaling:CompleteLifecycleAction", 2),
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(completions(node)).to.deep.equal(
      Array(3).fill(
        "aws autoscaling complete-lifecycle-action --region us-east-1 --auto-scaling-group-name nodes.dev.k8s.local " +
          "--lifecycle-hook-name cilium-cluster-joined --instance-id i-0123456789abcdef0 --lifecycle-action-result CONTINUE",
      ),
    );
    // After every other step: the join, and the units the last step enables.
    const log = node.log().split("\n");
    expect(log.findIndex((l) => l.startsWith("aws autoscaling complete-lifecycle-action"))).to.be.greaterThan(
      log.map((l) => l.startsWith("kubeadm join") || l.startsWith("systemctl ")).lastIndexOf(true),
    );
    expect(lifecycle(node)).to.equal("InService");
    // Restarted with the same configuration: nothing to do. Reset by hand since it joined: it joins again,
    // and the instance, InService, has no hook to complete.
    const again = await runService(node, 1);
    expect(again.status, again.stderr).to.equal(0);
    expect((await run("kubeadm", ["reset", "--force"], node.env)).status).to.equal(0);
    const rejoined = await runService(node, 1);
    expect(rejoined.status, rejoined.stderr).to.equal(0);
    expect(calls(node, "kubeadm").filter((l) => l.startsWith("kubeadm join"))).to.have.length(2);
    expect(completions(node)).to.have.length(3);
  });

  it("a node whose completion answer was lost finds the action completed, from its state, and succeeds", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), {}, 2, {
      aws: (aws) => aws.loseAnswers("autoscaling:CompleteLifecycleAction", 1),
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(1);
    // The retry finds no action left, and the instance InService.
    expect(completions(node)).to.have.length(2);
    expect(lifecycle(node)).to.equal("InService");
    expect(node.exists(JOINED_MARKER)).to.equal(true);
  });

  it("a completion Auto Scaling refuses while the instance still waits (a wrong group or hook name) fails the run", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), { BOOTSTRAP_TRIES: "2" }, 2, {
      aws: (aws) =>
        aws.groups.set("nodes.dev.k8s.local", {
          hooks: [{ name: "another-hook", lifecycleTransition: "autoscaling:EC2_INSTANCE_LAUNCHING" }],
          refreshes: [],
        }),
    });
    expect(service.status).not.to.equal(0);
    expect(service.runs).to.equal(2);
    const completing = node.aws.calls.filter((c) => c.action === "autoscaling:CompleteLifecycleAction");
    expect(completing.length).to.be.greaterThan(0);
    expect(completing.filter((c) => c.refused !== "ValidationError")).to.deep.equal([]);
    expect(node.exists(JOINED_MARKER)).to.equal(false);
    // Still waiting on its hook: the join deadline abandons it unless a later run completes it.
    expect(lifecycle(node)).to.equal("Pending:Wait");
  });
});

describe("control-plane bootstrap and the cluster's state, run as systemd runs it", function () {
  this.timeout(180000);
  const FIRST = "control-plane-us-east-1a";
  const JOINING = "control-plane-us-east-1b";
  /** Another instance's init record; by default its owner still runs (so the cluster it created may). */
  const othersRecord = (aws: AwsFake, ownerState = "running") => {
    aws.putParameter(INIT_RECORD, "i-0aaaaaaaaaaaaaaaa 2026-01-01T00:00:00Z", "String");
    const owner = aws.launch({
      id: "i-0aaaaaaaaaaaaaaaa",
      privateIp: "10.0.12.40",
      zone: "us-east-1a",
      instanceType: "t3.large",
      mac: "0a:00:00:00:00:0a",
      tags: { [CLUSTER_TAG]: "dev.k8s.local", [ROLE_TAGS["control-plane"]]: "1" },
    });
    owner.state = ownerState;
  };
  /** The cluster's other control-plane instances, pending or running at these addresses. */
  const controlPlaneAt =
    (...addresses: string[]) =>
    (aws: AwsFake) =>
      addresses.forEach((privateIp, i) =>
        aws.launch({
          id: `i-0other${i}`,
          privateIp,
          zone: "us-east-1c",
          instanceType: "t3.large",
          mac: "0a:00:00:00:00:0" + i,
          tags: { [CLUSTER_TAG]: "dev.k8s.local", [ROLE_TAGS["control-plane"]]: "1" },
        }),
      );
  /** No API answers, and the node waits for it once: a node that would join fails its run instead. */
  const NO_API = { STANDIN_API_READY_AFTER: NEVER, API_WAIT_TRIES: "1" };
  /** The cluster a control-plane node joins: a member at a running instance, one whose instance is gone. */
  const CLUSTER = { STANDIN_ETCD_MEMBERS: "a1=https://10.0.12.50:2380 b2=https://10.0.12.77:2380" };
  const RUNNING = { aws: controlPlaneAt("10.0.12.50") };
  const lines = (node: Node) => node.log().split("\n");
  const indexOf = (node: Node, prefix: string) => lines(node).findIndex((l) => l.startsWith(prefix));
  const removed = (node: Node) => {
    const file = join(node.state, "etcd-removed");
    return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  };

  standInMachine();

  it("the init zone's control-plane node never runs kubeadm init once the init record exists", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, { aws: othersRecord });
    expect(service.status).to.equal(1);
    // It waited for the API the record says exists, and neither created a cluster nor touched the record.
    expect(calls(node, "curl").filter((l) => l.includes("/readyz"))).not.to.deep.equal([]);
    expect(calls(node, "kubeadm")).to.deep.equal([]);
    const initClaims = node.aws.calls.filter((c) => c.action === "ssm:PutParameter" && c.params.Name === INIT_RECORD);
    expect(initClaims).to.deep.equal([]);
    expect(initRecord(node)).to.match(/^i-0aaaaaaaaaaaaaaaa /);
  });

  it("two nodes racing for init: the one that cannot create the record does not init", async () => {
    // The other node creates the record between this node's last read of it (its claim's) and its claim.
    let reads = 0;
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, {
      aws: (aws) =>
        aws.afterCall("ssm:GetParameter", (p) => {
          if (p.Name === INIT_RECORD && ++reads === 2) othersRecord(aws);
        }),
    });
    expect(service.status).to.equal(1);
    const claims = node.aws.calls.filter((c) => c.action === "ssm:PutParameter" && c.params.Name === INIT_RECORD);
    expect(claims.map((c) => c.refused)).to.deep.equal(["ParameterAlreadyExists"]);
    expect(initRecord(node)).to.match(/^i-0aaaaaaaaaaaaaaaa /);
    expect(node.log()).not.to.match(/^kubeadm init/m);
  });

  it("every member lost, no snapshot (its first node never went into service): the init zone's next node takes the record over and creates the cluster", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, {
      aws: (aws) => othersRecord(aws, "terminated"),
    });
    expect(service.status, service.stderr).to.equal(0);
    const claims = node.aws.calls.filter((c) => c.action === "ssm:PutParameter" && c.params.Name === INIT_RECORD);
    expect(claims.map((c) => [c.params.Overwrite, c.refused])).to.deep.equal([["true", undefined]]);
    expect(initRecord(node)).to.match(new RegExp(`^${node.instance.id} \\S+$`));
    const inits = kubeadmRuns(node).filter((l) => l.startsWith("kubeadm init"));
    expect(inits).to.have.length(1);
    expect(inits[0]).not.to.contain("--ignore-preflight-errors");
    expect(existsSync(join(node.state, "etcd-restored"))).to.equal(false);
  });

  it("every member lost, with a snapshot: the init zone's next node restores the latest into etcd's directory, and kubeadm init starts etcd on it", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, {
      clusterKeysStored: true,
      aws: (aws) => {
        othersRecord(aws, "terminated");
        aws.objects.set(`etcd-backups-test/${LATEST_SNAPSHOT_KEY}`, Buffer.from("snapshot"));
      },
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(initRecord(node)).to.match(new RegExp(`^${node.instance.id} \\S+ restore$`));
    // A one-member cluster of this node, named after its Node at its own address, as kubeadm's manifest names it.
    const ip = node.instance.privateIp;
    const restored = readFileSync(join(node.state, "etcd-restored"), "utf8").trim().split("\n");
    expect(restored).to.have.length(1);
    expect(restored[0]).to.match(
      new RegExp(
        `^--data-dir ${node.root}/var/lib/etcd --name (ip-[0-9-]+\\S*) --initial-cluster \\1=https://${ip}:2380 ` +
          `--initial-advertise-peer-urls https://${ip}:2380 --bump-revision 1000000000 --mark-compacted$`,
      ),
    );
    // kubeadm init's preflight wants an empty /var/lib/etcd: the restored one is let through, and kept.
    const inits = kubeadmRuns(node).filter((l) => l.startsWith("kubeadm init"));
    expect(inits).to.have.length(1);
    expect(inits[0]).to.contain("--ignore-preflight-errors=DirAvailable--var-lib-etcd");
    expect(node.exists("var/lib/etcd/member")).to.equal(true);
    // The cluster's own keys, which the restored objects were made with; the snapshot was read once.
    expect(node.aws.calls.filter((c) => c.action === "s3:GetObject").map((c) => c.params.Key)).to.deep.equal([
      LATEST_SNAPSHOT_KEY,
    ]);
  });

  it("every member lost, with a restore request (npm run restore-snapshot): the init zone's next node restores the snapshot it names, records it, and deletes the request once the cluster runs on it", async () => {
    const older = "etcd/20260101T000000Z.db";
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, {
      clusterKeysStored: true,
      aws: (aws) => {
        othersRecord(aws, "terminated");
        aws.objects.set(`etcd-backups-test/${LATEST_SNAPSHOT_KEY}`, Buffer.from("newer"));
        aws.objects.set(`etcd-backups-test/${older}`, Buffer.from("older"));
        aws.putParameter(RESTORE_REQUEST, older, "String");
      },
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(initRecord(node)).to.match(new RegExp(`^${node.instance.id} \\S+ restore ${older}$`));
    expect(node.aws.parameters.has(RESTORE_REQUEST)).to.equal(false);
    expect(node.aws.calls.filter((c) => c.action === "s3:GetObject").map((c) => c.params.Key)).to.deep.equal([older]);
    expect(readFileSync(join(node.state, "etcd-restored"), "utf8").trim().split("\n")).to.have.length(1);
    const inits = kubeadmRuns(node).filter((l) => l.startsWith("kubeadm init"));
    expect(inits).to.have.length(1);
    expect(inits[0]).to.contain("--ignore-preflight-errors=DirAvailable--var-lib-etcd");
  });

  it("a restore request whose snapshot cannot be restored, or whose kubeadm init stops half-way: the node fails, and leaves the request for the next", async () => {
    const older = "etcd/20260101T000000Z.db";
    const failing = (restorable: boolean) => (aws: AwsFake) => {
      othersRecord(aws, "terminated");
      aws.objects.set(`etcd-backups-test/${LATEST_SNAPSHOT_KEY}`, Buffer.from("newer"));
      if (restorable) aws.objects.set(`etcd-backups-test/${older}`, Buffer.from("older"));
      aws.putParameter(RESTORE_REQUEST, older, "String");
    };
    const missing = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, {
      clusterKeysStored: true,
      aws: failing(false),
    });
    const halfWay = await boot(userDataFor(specWith({}), FIRST), { ...NO_API, STANDIN_KUBEADM_FAILURES: "1" }, 1, {
      clusterKeysStored: true,
      aws: failing(true),
    });
    for (const { node, service } of [missing, halfWay]) {
      expect(service.status).to.equal(1);
      expect(initRecord(node)).to.match(new RegExp(`^${node.instance.id} \\S+ restore ${older}$`));
      expect(node.aws.parameters.get(RESTORE_REQUEST)?.value).to.equal(older);
      // Never the latest instead of the snapshot asked for.
      expect(node.aws.calls.filter((c) => c.action === "s3:GetObject").map((c) => c.params.Key)).not.to.include(
        LATEST_SNAPSHOT_KEY,
      );
    }
    expect(kubeadmRuns(missing.node).filter((l) => l.startsWith("kubeadm init"))).to.deep.equal([]);
    expect(kubeadmRuns(halfWay.node).filter((l) => l.startsWith("kubeadm init"))).to.have.length(1);
  });

  it("a restore request that names no snapshot of the timer's: the node restores nothing and creates no cluster", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, {
      clusterKeysStored: true,
      aws: (aws) => {
        othersRecord(aws, "terminated");
        aws.objects.set(`etcd-backups-test/${LATEST_SNAPSHOT_KEY}`, Buffer.from("newer"));
        aws.putParameter(RESTORE_REQUEST, "latest/../other.db", "String");
      },
    });
    expect(service.status).to.equal(1);
    expect(initRecord(node)).to.match(/^i-0aaaaaaaaaaaaaaaa /);
    // Nor does it hold the succession, which no node after it could take once the request is mended.
    expect([...node.aws.parameters.keys()].filter((name) => name.includes("-succession-"))).to.deep.equal([]);
    expect(node.aws.calls.filter((c) => c.action === "s3:GetObject")).to.deep.equal([]);
    expect(kubeadmRuns(node).filter((l) => l.startsWith("kubeadm init"))).to.deep.equal([]);
  });

  it("the record's owner gone, but a member at another running control-plane instance answers: no init; none answers: the cluster is created again", async () => {
    // A member still in its launch hook, in standby or terminating is no InService instance, yet a voter.
    const gone = (aws: AwsFake) => {
      othersRecord(aws, "terminated");
      controlPlaneAt("10.0.12.50")(aws);
    };
    const answering = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, { aws: gone });
    expect(answering.service.status).to.equal(1);
    expect(kubeadmRuns(answering.node).filter((l) => /^kubeadm (init|join) --/.test(l))).to.deep.equal([]);
    expect(initRecord(answering.node)).to.match(/^i-0aaaaaaaaaaaaaaaa /);
    expect(
      lines(answering.node).some((l) =>
        /^etcdctl --endpoints=https:\/\/10\.0\.12\.50:2379 .* endpoint status -w json$/.test(l),
      ),
    ).to.equal(true);
    const silent = await boot(userDataFor(specWith({}), FIRST), { ...NO_API, STANDIN_ETCD_DOWN: "1" }, 1, {
      aws: gone,
    });
    expect(silent.service.status, silent.service.stderr).to.equal(0);
    expect(initRecord(silent.node)).to.match(new RegExp(`^${silent.node.instance.id} `));
    expect(kubeadmRuns(silent.node).filter((l) => /^kubeadm init --/.test(l))).to.have.length(1);
  });

  it("two nodes finding the record stale: only the one that creates the succession record takes it over", async () => {
    const succession = `${INIT_RECORD}-succession-i-0aaaaaaaaaaaaaaaa`;
    const lost = await boot(userDataFor(specWith({}), FIRST), NO_API, 1, {
      aws: (aws) => {
        othersRecord(aws, "terminated");
        aws.putParameter(succession, "i-0ccccccccccccccccc 2026-01-01T00:00:00Z", "String");
      },
    });
    expect(lost.service.status).to.equal(1);
    expect(initRecord(lost.node)).to.match(/^i-0aaaaaaaaaaaaaaaa /);
    expect(kubeadmRuns(lost.node)).to.deep.equal([]);
    // A run that won the succession and then stopped (S3 did not answer all its tries) takes the record over
    // on the next run.
    const won = await boot(userDataFor(specWith({}), FIRST), NO_API, 2, {
      aws: (aws) => {
        othersRecord(aws, "terminated");
        aws.throttle("s3:ListObjectsV2", 8);
      },
    });
    expect(won.service.status, won.service.stderr).to.equal(0);
    expect(won.service.runs).to.equal(2);
    const value = won.node.aws.parameters.get(succession)?.value ?? "";
    expect(value.split(" ")[0]).to.equal(won.node.instance.id);
    expect(initRecord(won.node).split(" ")[0]).to.equal(won.node.instance.id);
  });

  it("a joining control-plane node's launch hook gets heartbeats while kubeadm join runs, and once after; not past a run's bound from boot", async () => {
    zone = "us-east-1b";
    const heartbeatsAround = (node: Node) => {
      const calls = node.aws.calls;
      const joined = calls.findIndex((c) => c.action === "autoscaling:CompleteLifecycleAction");
      return calls
        .slice(0, joined)
        .filter((c) => c.action === "autoscaling:RecordLifecycleActionHeartbeat")
        .map((c) => c.params.LifecycleHookName);
    };
    const joining = await boot(userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING), CLUSTER, 6, RUNNING);
    expect(joining.service.status, joining.service.stderr).to.equal(0);
    // One as kubeadm join starts (the join deadline counts from there), one once it has promoted the member.
    expect(heartbeatsAround(joining.node)).to.deep.equal([LAUNCH_HOOK_NAME, LAUNCH_HOOK_NAME]);
    expect(joining.node.instance.heartbeats).to.equal(2);
    // Past one bootstrap run's bound from boot, a node whose joins keep failing gets none: it is abandoned.
    const late = await boot(
      userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
      {
        ...CLUSTER,
        LAUNCH_HEARTBEATS_SECONDS: "0",
      },
      6,
      RUNNING,
    );
    expect(late.service.status, late.service.stderr).to.equal(0);
    expect(late.node.instance.heartbeats).to.equal(0);
    // A worker's join adds no etcd member: no heartbeat.
    zone = "us-east-1a";
    const worker = await boot(userDataFor(specWith({}), "nodes"), { STANDIN_API_READY_AFTER: "0" });
    expect(worker.service.status, worker.service.stderr).to.equal(0);
    expect(worker.node.instance.heartbeats).to.equal(0);
  });

  it("a joining node removes the members whose instances are gone before kubeadm join, through a running member", async () => {
    zone = "us-east-1b";
    const { node, service } = await boot(
      userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
      CLUSTER,
      6,
      RUNNING,
    );
    expect(service.status, service.stderr).to.equal(0);
    // b2's address is no control-plane instance's: removed, through the member at the running instance.
    expect(removed(node)).to.deep.equal(["b2"]);
    const remove = indexOf(node, "etcdctl --endpoints=https://10.0.12.50:2379 ");
    expect(lines(node)[remove]).to.contain("member list -w json --hex");
    expect(indexOf(node, "etcdctl --endpoints=https://10.0.12.50:2379 --cacert")).to.be.greaterThan(-1);
    expect(lines(node).some((l) => /^etcdctl .* member remove b2$/.test(l))).to.equal(true);
    expect(indexOf(node, "kubeadm join")).to.be.greaterThan(lines(node).findIndex((l) => /member remove b2$/.test(l)));
    // It asked with the health-check client certificate kubeadm issued from the fetched etcd CA.
    expect(node.log()).to.match(
      /^kubeadm init phase certs etcd-healthcheck-client --cert-dir \S+\/etc\/kubernetes\/pki --kubernetes-version v1\.35\.4$/m,
    );
    // kubeadm join reached the cluster through the load balancer; the node's own API server answers the name after.
    expect(node.kubeadmHosts()[0]).to.not.contain("api.example.test");
    expect(node.file("etc/hosts")).to.match(/^127\.0\.0\.1 api\.example\.test # /);
    expect(kubeadmDocument(node, "JoinConfiguration").controlPlane).to.deep.equal({
      localAPIEndpoint: { bindPort: 443 },
    });
  });

  it("a joining control-plane node whose API answers before the cluster's keys are stored waits for them, then joins with them", async () => {
    zone = "us-east-1b";
    const userData = userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING);
    // The first node stores them while this one asks the second time.
    let asked = 0;
    const { node, service } = await boot(userData, CLUSTER, 1, {
      clusterKeysStored: false,
      aws: (aws) => {
        RUNNING.aws(aws);
        aws.afterCall("ssm:GetParameter", (p) => {
          if (p.Name === "/cluster-ca" && ++asked === 2) storeClusterKeys(aws, userData, secrets.dir);
        });
      },
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(asked).to.be.greaterThan(2);
    for (const [file, path] of [
      ["ca.key", "ca.key"],
      ["etcd-ca.key", "etcd/ca.key"],
      ["sa.key", "sa.key"],
    ]) {
      expect(node.file(`etc/kubernetes/pki/${path}`), path).to.equal(readFileSync(join(secrets.dir, file), "utf8"));
      expect(statSync(join(node.root, "etc/kubernetes/pki", path)).mode & 0o777, path).to.equal(0o600);
    }
    // Fetched before anything used them: the etcd client that removes departed members, and kubeadm join.
    const fetched = node.aws.calls.findIndex((c) => c.action === "ssm:GetParameter" && c.params.Name === "/pki/ca.key");
    expect(fetched).to.be.greaterThan(-1);
    expect(indexOf(node, "kubeadm init phase certs etcd-healthcheck-client")).to.be.greaterThan(
      indexOfCall(node, "aws ssm get-parameter --region us-east-1 --name /pki/sa.pub"),
    );
    // A node that did not create the cluster stores none of its keys.
    const puts = node.aws.calls.filter((c) => c.action === "ssm:PutParameter").map((c) => c.params.Name as string);
    expect(puts.filter((n) => n.startsWith("/pki/") || n === "/cluster-ca")).to.deep.equal([]);
  });

  it("a joining control-plane node signs its own credential, for its own node name, with the CA it fetched", async () => {
    zone = "us-east-1b";
    const { node, service } = await boot(
      userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
      CLUSTER,
      6,
      RUNNING,
    );
    expect(service.status, service.stderr).to.equal(0);
    const signed = calls(node, "kubeadm kubeconfig user").filter((l) => l.includes(" --org system:nodes "));
    expect(signed).to.have.length(1);
    expect(signed[0]).to.match(
      /^kubeadm kubeconfig user --config (\S+) --client-name system:node:ip-10-0-12-34\.ec2\.internal --org system:nodes --validity-period 60m$/,
    );
    // kubeadm's configuration for it lived in a file of its own, gone once signed; no AWS call read a credential.
    expect(existsSync(/ --config (\S+) /.exec(signed[0])![1])).to.equal(false);
    expect(calls(node, "aws ssm").filter((l) => l.includes("/instance/"))).to.deep.equal([]);
    expect(indexOfCall(node, "kubeadm join")).to.be.greaterThan(node.log().split("\n").indexOf(signed[0]));
    expect(kubeadmDocument(node, "JoinConfiguration").discovery).to.deep.equal({
      file: { kubeConfigPath: JOIN_CREDENTIAL_FILE },
    });
    expect(node.exists(JOIN_CREDENTIAL_FILE)).to.equal(false);
  });

  it("a control-plane node of a newer release moves the cluster's kubeadm configuration to it, then joins", async () => {
    zone = "us-east-1b";
    const spec = specWith({
      controlPlane: { count: 3 },
      kubeProxy: { enabled: false },
      networking: { cilium: { enableNodePort: true } },
    });
    const older = { ...CLUSTER, STANDIN_CLUSTER_VERSION: "1.34.12" };
    const { node, service } = await boot(userDataFor(spec, JOINING), older, 6, RUNNING);
    expect(service.status, service.stderr).to.equal(0);
    // An admin credential from the CA the node fetched, then kubeadm's upload-config with this group's
    // configuration, then the join, which deploys the static pods of the release kubeadm-config now names.
    const [user, upload, joins] = [
      "kubeadm kubeconfig user ",
      "kubeadm init phase upload-config kubeadm ",
      "kubeadm join ",
    ].map((prefix) => indexOf(node, prefix));
    expect(user, "kubeconfig user").to.be.greaterThan(-1);
    expect(upload, "upload-config").to.be.greaterThan(user);
    expect(joins, "join").to.be.greaterThan(upload);
    expect(lines(node)[user]).to.match(
      / --client-name cilium-cluster:upgrade --org kubeadm:cluster-admins --validity-period 1h$/,
    );
    expect(readFileSync(join(node.state, "cluster-version"), "utf8")).to.equal("1.35.4\n");
    // The group's own ClusterConfiguration: kube-proxy stays disabled in the cluster's kubeadm-config.
    const uploaded = parseAllDocuments(readFileSync(join(node.state, "kubeadm-config.yaml"), "utf8"))[0].toJS();
    expect(uploaded).to.deep.include({ kubernetesVersion: "v1.35.4", proxy: { disabled: true } });
    // The credential and the configuration lived in a directory of their own, gone once the step ended; no
    // admin.conf was left in /etc/kubernetes for kubeadm_state to take for a half-done join.
    const dir = / --config (\S+)\/kubeadm\.yaml /.exec(lines(node)[user])![1];
    expect(existsSync(dir)).to.equal(false);
    expect(node.kubeadmConfigs().at(-1)).to.contain("kind: JoinConfiguration");

    // A node of the cluster's own release only looks.
    const same = await boot(userDataFor(spec, JOINING), CLUSTER, 6, RUNNING);
    expect(same.service.status, same.service.stderr).to.equal(0);
    expect(same.node.log()).not.to.contain("upload-config");
    expect(indexOf(same.node, "kubeadm join ")).to.be.greaterThan(indexOf(same.node, "kubeadm kubeconfig user "));
  });

  it("a control-plane node never joins a newer cluster, nor one more than a minor behind", async () => {
    zone = "us-east-1b";
    for (const cluster of ["1.35.5", "1.36.0", "1.33.13"]) {
      const { node, service } = await boot(
        userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
        { ...CLUSTER, STANDIN_CLUSTER_VERSION: cluster },
        2,
        RUNNING,
      );
      expect(service.status, cluster).to.not.equal(0);
      expect(node.log(), cluster).not.to.match(/^kubeadm (join|init phase upload-config)/m);
      expect(lifecycle(node), cluster).to.not.equal("InService");
    }
  });

  it("a member at a pending or running instance stays, even when it does not answer; no EC2 answer removes nothing", async () => {
    zone = "us-east-1b";
    const spec = specWith({ controlPlane: { count: 3 } });
    const kept = await boot(userDataFor(spec, JOINING), CLUSTER, 6, {
      aws: controlPlaneAt("10.0.12.50", "10.0.12.77"),
    });
    expect(kept.service.status, kept.service.stderr).to.equal(0);
    expect(removed(kept.node)).to.deep.equal([]);

    const blind = await boot(userDataFor(spec, JOINING), CLUSTER, 1, {
      aws: (aws) => {
        controlPlaneAt("10.0.12.50")(aws);
        aws.throttle("ec2:DescribeInstances", Infinity);
      },
    });
    expect(blind.service.status).to.not.equal(0);
    expect(removed(blind.node)).to.deep.equal([]);
    expect(blind.node.log()).not.to.match(/^kubeadm join/m);
  });

  it("etcd that does not answer stops the join: kubeadm's check-etcd would fail on the departed member", async () => {
    zone = "us-east-1b";
    const { node, service } = await boot(
      userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
      { ...CLUSTER, STANDIN_ETCD_DOWN: "1" },
      1,
      RUNNING,
    );
    expect(service.status).to.not.equal(0);
    expect(node.log()).not.to.match(/^kubeadm join/m);
  });

  it("a control-plane member that stopped half-way is undone with kubeadm reset and joins again, its keys fetched again", async () => {
    zone = "us-east-1b";
    const { node, service } = await boot(
      userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
      {
        ...CLUSTER,
        STANDIN_KUBEADM_FAILURES: "1",
      },
      6,
      RUNNING,
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(service.runs).to.equal(3);
    const kubeadm = kubeadmRuns(node).filter((l) => !l.includes(" phase ") && !l.includes(" images "));
    expect(kubeadm.map((l) => l.split(" ").slice(0, 2).join(" "))).to.deep.equal([
      "kubeadm join",
      "kubeadm reset",
      "kubeadm join",
    ]);
    expect(kubeadm[1]).to.equal("kubeadm reset --force");
    // The second join reached the load balancer again: the reset took the name back from this node.
    expect(node.kubeadmHosts()[1]).to.not.contain("api.example.test");
    expect(node.file("etc/kubernetes/pki/etcd/ca.key")).to.equal(
      readFileSync(join(secrets.dir, "etcd-ca.key"), "utf8"),
    );
  });

  // The bootstrap killed in the middle of a step (power lost, systemd's timeout), then run again as systemd
  // runs it: each time it ends joined, in service once, its name pinned, and the departed member gone.
  const KILLED_JOIN = [
    "apt-get -o DPkg::Lock::Timeout=600 -q install",
    "aws ssm get-parameter",
    "kubeadm init phase certs etcd-healthcheck-client",
    "etcdctl",
    "kubeadm join",
    "kubeadm reset",
    "systemctl enable --now etcd-backup.timer",
    "aws autoscaling complete-lifecycle-action",
  ];
  for (const at of KILLED_JOIN) {
    it(`a joining control-plane node killed at \`${at}\` converges when systemd runs it again`, async () => {
      zone = "us-east-1b";
      // A half-done join first (its kubeadm stops after its member was added, before the kubelet registered),
      // so that the member's leaving and the reset are on the path too.
      const { node, service } = await boot(
        userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
        {
          ...CLUSTER,
          STANDIN_KUBEADM_FAILURES_AFTER_MEMBER: "1",
          STANDIN_KILL_AT: at,
        },
        6,
        RUNNING,
      );
      expect(existsSync(join(node.state, "killed")), "killed").to.equal(true);
      expect(service.status, service.stderr).to.equal(0);
      expect(node.exists(JOINED_MARKER)).to.equal(true);
      expect(lifecycle(node)).to.equal("InService");
      expect(removed(node)).to.deep.equal(["b2", "self"]);
      expect(node.file("etc/hosts")).to.match(/^127\.0\.0\.1 api\.example\.test # /);
      // Every join ran with the name on the load balancer, every one after a reset of what the last left.
      for (const hosts of node.kubeadmHosts()) expect(hosts).to.not.contain("api.example.test");
    });
  }

  for (const at of [
    "aws ssm put-parameter --region us-east-1 --name /encryption-keys",
    `aws ssm put-parameter --region us-east-1 --name ${INIT_RECORD}`,
    "kubeadm init --skip-token-print --config",
    // Storing the cluster's keys: half of them stored, and the CA's certificate, which says all are.
    "aws ssm put-parameter --region us-east-1 --name /pki/etcd/ca.key",
    "aws ssm put-parameter --region us-east-1 --name /cluster-ca",
    "systemctl enable --now etcd-backup.timer",
  ]) {
    it(`the first control-plane node killed at \`${at}\` creates the cluster once when systemd runs it again`, async () => {
      const { node, service } = await boot(
        userDataFor(specWith({}), FIRST),
        { STANDIN_API_READY_AFTER: NEVER, STANDIN_KILL_AT: at },
        6,
        { clusterKeysStored: false },
      );
      expect(existsSync(join(node.state, "killed")), "killed").to.equal(true);
      expect(service.status, service.stderr).to.equal(0);
      expect(initRecord(node)).to.match(/^i-0123456789abcdef0 /);
      expect(calls(node, "kubeadm").filter((l) => l.startsWith("kubeadm init --"))).to.have.length.within(1, 2);
      expect(node.exists(JOINED_MARKER)).to.equal(true);
      expect(lifecycle(node)).to.equal("InService");
      // The keys stored are the ones the cluster runs with, every one of them.
      for (const f of SHARED_PKI_FILES)
        expect(node.aws.parameters.get(`/pki/${f}`)?.value, f).to.equal(node.file(`etc/kubernetes/pki/${f}`).trim());
      expect(node.aws.parameters.get("/cluster-ca")?.value).to.equal(node.file("etc/kubernetes/pki/ca.crt").trim());
    });
  }

  it("a join stopped after its member was added leaves etcd before kubeadm reset wipes its data, and joins again", async () => {
    zone = "us-east-1b";
    const { node, service } = await boot(
      userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
      {
        ...CLUSTER,
        STANDIN_KUBEADM_FAILURES_AFTER_MEMBER: "1",
      },
      6,
      RUNNING,
    );
    expect(service.status, service.stderr).to.equal(0);
    // The member left through the running member, then the reset, then a join that passed check-etcd.
    expect(removed(node)).to.deep.equal(["b2", "self"]);
    const selfRemoved = lines(node).findIndex((l) => /^etcdctl .* member remove self$/.test(l));
    expect(selfRemoved).to.be.greaterThan(-1);
    expect(selfRemoved).to.be.lessThan(indexOf(node, "kubeadm reset --force"));
    expect(
      kubeadmRuns(node)
        .filter((l) => /^kubeadm (join|reset)/.test(l))
        .map((l) => l.split(" ")[1]),
    ).to.deep.equal(["join", "reset", "join"]);
  });

  it("a join stopped after its member was added is not reset while etcd cannot remove the member", async () => {
    zone = "us-east-1b";
    const { node, service } = await boot(
      userDataFor(specWith({ controlPlane: { count: 3 } }), JOINING),
      { ...CLUSTER, STANDIN_KUBEADM_FAILURES_AFTER_MEMBER: "1" },
      1,
      RUNNING,
    );
    expect(service.status).to.not.equal(0);
    node.env.STANDIN_ETCD_DOWN = "1";
    const again = await runService(node, 1);
    expect(again.status).to.not.equal(0);
    expect(node.log()).not.to.match(/^kubeadm reset/m);
    expect(node.exists("var/lib/etcd/member/snap/db")).to.equal(true);
  });

  it("the node that creates a cluster whose keys are stored (a restore) inits with them, and stores nothing", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), { STANDIN_API_READY_AFTER: NEVER });
    expect(service.status, service.stderr).to.equal(0);
    expect(kubeadmRuns(node).filter((l) => l.startsWith("kubeadm init "))).to.have.length(1);
    // kubeadm init found them in place, and used them (the stand-in makes only the ones it does not find).
    for (const [file, path] of Object.entries(KUBEADM_PKI_PATH))
      expect(node.file(`etc/kubernetes/pki/${path}`), path).to.equal(readFileSync(join(secrets.dir, file), "utf8"));
    const stored = node.aws.calls.filter(
      (c) => c.action === "ssm:PutParameter" && /^\/pki\/|^\/cluster-ca$/.test(c.params.Name as string),
    );
    expect(stored).to.deep.equal([]);
  });

  it("an init that stopped half-way is undone and run again: the init record is its own", async () => {
    const { node, service } = await boot(
      userDataFor(specWith({}), FIRST),
      { STANDIN_API_READY_AFTER: NEVER, STANDIN_KUBEADM_FAILURES: "1" },
      6,
      { clusterKeysStored: false },
    );
    expect(service.status, service.stderr).to.equal(0);
    // The init stops half-way; the next run undoes it and fails; the third inits again.
    expect(service.runs).to.equal(3);
    const init = `kubeadm init --skip-token-print --config ${node.root}/etc/kubernetes/kubeadm.yaml`;
    expect(kubeadmRuns(node)).to.deep.equal([init, "kubeadm reset --force", init]);
    expect(initRecord(node)).to.match(/^i-0123456789abcdef0 /);
    expect(node.exists(JOINED_MARKER)).to.equal(true);
  });

  it("the units run the bootstrap's own functions: the leader uploads a snapshot, a follower nothing, a silent member fails", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), { STANDIN_API_READY_AFTER: NEVER });
    expect(service.status, service.stderr).to.equal(0);
    const unit = (name: string) => /^ExecStart=(\S+) (.+)$/m.exec(node.file(`etc/systemd/system/${name}`))!;
    const [, script, fn] = unit("etcd-backup.service");
    const backup = (env: Record<string, string> = {}) =>
      run(join(node.root, script), fn.split(" "), { ...node.env, ...env });
    const leader = await backup();
    expect(leader.status, leader.stderr).to.equal(0);
    const uploaded = [...node.aws.objects.keys()];
    expect(uploaded).to.have.length(2);
    expect(uploaded[0]).to.match(/^etcd-backups-test\/etcd\/\d{8}T\d{6}Z\.db$/);
    expect(uploaded[1]).to.equal("etcd-backups-test/latest/etcd.db");
    expect(node.aws.objects.get(uploaded[1])!.toString()).to.equal("snapshot\n");
    expect(node.aws.metrics.map((m) => m.value)).to.deep.equal([1]);
    node.aws.objects.clear();
    const follower = await backup({ STANDIN_ETCD_LEADER: "1" });
    expect(follower.status, follower.stderr).to.equal(0);
    expect(node.aws.objects.size).to.equal(0);
    expect(node.aws.metrics).to.have.length(1);
    const silent = await backup({ STANDIN_ETCD_DOWN: "1" });
    expect(silent.status).to.not.equal(0);
  });

  /**
   * The first control-plane node, booted, its replacement (10.0.12.50) joined already (the refresh launched it
   * first), and now terminating: its etcd-leave service's script and arguments.
   */
  async function terminatingMember() {
    const replaced = {
      STANDIN_API_READY_AFTER: NEVER,
      STANDIN_ETCD_MEMBERS: "a1=https://10.0.12.50:2380 me=https://10.0.12.34:2380",
    };
    const { node, service } = await boot(userDataFor(specWith({}), FIRST), replaced, 6, RUNNING);
    expect(service.status, service.stderr).to.equal(0);
    node.aws.terminate(node.instance.id);
    const [, script, args] = /^ExecStart=(\S+) (.+)$/m.exec(node.file("etc/systemd/system/etcd-leave.service"))!;
    return { node, script, args };
  }

  it("a terminating member waits for its node's drain, leaves etcd through a running member, is checked gone, then lets the termination go on", async () => {
    const { node, script, args } = await terminatingMember();
    // The termination handler drains the node meanwhile: done at the third look.
    const env = { ...node.env, STANDIN_DRAINED_AFTER: "2", ETCD_LEAVE_RETRY_SECONDS: "0" };
    const leave = await run(join(node.root, script), args.split(" "), env);
    expect(leave.status, leave.stderr).to.equal(0);
    expect(removed(node)).to.deep.equal(["me"]);
    const looks = lines(node)
      .map((l, i) => [l, i] as const)
      .filter(
        ([l]) =>
          l.startsWith(`kubectl --kubeconfig ${node.root}/etc/kubernetes/admin.conf`) && l.includes(" get node "),
      );
    expect(looks).to.have.length(3);
    // Held in its etcd hook while the drain goes on, one heartbeat each look that found the node undrained.
    expect(node.instance.heartbeats).to.equal(2);
    const remove = lines(node).findIndex((l) =>
      /^etcdctl --endpoints=https:\/\/10\.0\.12\.50:2379 .* member remove me$/.test(l),
    );
    expect(remove).to.be.greaterThan(looks[2][1]);
    const completed = lines(node)
      .map((l) => l.startsWith("aws autoscaling complete-lifecycle-action"))
      .lastIndexOf(true);
    expect(completed).to.be.greaterThan(remove);
    expect(lines(node)[completed]).to.contain("--lifecycle-hook-name etcd-member ");
    // The instance goes once the termination handler has completed its own hook too.
    expect(lifecycle(node)).to.equal("Terminating:Wait");
    await node.aws.call(
      "autoscaling:CompleteLifecycleAction",
      {
        AutoScalingGroupName: node.instance.group!,
        LifecycleHookName: DRAIN_LIFECYCLE_HOOK,
        InstanceId: node.instance.id,
        LifecycleActionResult: "CONTINUE",
      },
      "node-termination-handler",
      "us-east-1",
    );
    expect(lifecycle(node)).to.equal("Terminating:Proceed");
  });

  it("a terminating member whose node is never drained leaves once the drain hook's wait is over", async () => {
    const { node, script, args } = await terminatingMember();
    const env = { ...node.env, STANDIN_DRAINED_AFTER: NEVER, DRAIN_WAIT_SECONDS: "3", ETCD_LEAVE_RETRY_SECONDS: "0.2" };
    const started = Date.now();
    const leave = await run(join(node.root, script), args.split(" "), env);
    expect(leave.status, leave.stderr).to.equal(0);
    // Looked at the node until the wait was over, the instance held in its hook meanwhile, then left. bash's
    // SECONDS counts whole seconds from the shell's start, so a wait of 3 ends after 2 to 3 seconds.
    expect(Date.now() - started).to.be.at.least(2000);
    expect(calls(node, "kubectl").filter((l) => l.includes(" get node ")).length).to.be.at.least(1);
    expect(node.instance.heartbeats).to.be.at.least(1);
    expect(existsSync(join(node.state, "drained"))).to.equal(false);
    expect(removed(node)).to.deep.equal(["me"]);
  });

  it("a terminating member whose removal etcd answered but did not carry out is checked still listed: it keeps its instance", async () => {
    const { node, script, args } = await terminatingMember();
    const env = { ...node.env, STANDIN_ETCD_REMOVALS_LOST: "1", ETCD_LEAVE_RETRY_SECONDS: "0.2" };
    await run("timeout", ["15", join(node.root, script), ...args.split(" ")], env);
    expect(calls(node, "etcdctl").filter((l) => / member remove me$/.test(l)).length).to.be.greaterThan(1);
    expect(
      calls(node, "aws autoscaling complete-lifecycle-action").filter((l) =>
        l.includes("--lifecycle-hook-name etcd-member "),
      ),
    ).to.deep.equal([]);
    expect(node.instance.heartbeats, "heartbeats while it is held").to.be.greaterThan(1);
    expect(lifecycle(node)).to.equal("Terminating:Wait");
  });

  it("a terminating member that cannot leave keeps its instance, with heartbeats, and never completes the hook", async () => {
    const { node, service } = await boot(
      userDataFor(specWith({}), FIRST),
      { STANDIN_API_READY_AFTER: NEVER },
      6,
      RUNNING,
    );
    expect(service.status, service.stderr).to.equal(0);
    node.aws.terminate(node.instance.id);
    const [, script, args] = /^ExecStart=(\S+) (.+)$/m.exec(node.file("etc/systemd/system/etcd-leave.service"))!;
    const env = { ...node.env, STANDIN_ETCD_DOWN: "1", ETCD_LEAVE_RETRY_SECONDS: "0.2" };
    // Long enough for several tries on a loaded machine (each is an AWS call and an etcd attempt).
    await run("timeout", ["15", join(node.root, script), ...args.split(" ")], env);
    expect(node.instance.heartbeats).to.be.greaterThan(1);
    expect(lifecycle(node)).to.equal("Terminating:Wait");
  });

  it("a node Auto Scaling has not put in its launch hook yet (Pending) waits for the hook, then completes it", async () => {
    const { node, service } = await boot(userDataFor(specWith({}), "nodes"), {}, 1, {
      aws: (aws) => (aws.instance(NODE_INSTANCE.id).pendingAsks = 2),
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(calls(node, "aws autoscaling complete-lifecycle-action")).to.have.length(1);
    expect(lifecycle(node)).to.equal("InService");
  });
});
