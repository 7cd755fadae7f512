// The bootstrap run for real: bash executes the rendered user data against a fake instance-metadata
// server on 127.0.0.1, with stand-ins for package managers, systemd, kubeadm and the AWS CLI.
import { expect } from "chai";
import { execFileSync, spawn } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "fs";
import { createServer, Server } from "http";
import { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { renderUserData } from "../../components/nodes/userData";
import type { ClusterSpec } from "../../spec/types";
import { requireDebianTool } from "../debianTools";
import { specWith } from "../fixtures";

const METADATA: Record<string, string> = {
  mac: "0a:1b:2c:3d:4e:5f",
  "local-ipv4": "10.0.12.34",
  "instance-type": "t3.large",
  "placement/availability-zone": "us-east-1a",
};
const TOKEN = "fake-imds-token";

/** IMDSv2: a session token first, then metadata only with that token. */
function startImds(): Promise<Server> {
  const server = createServer((req, res) => {
    const key = req.url?.replace("/latest/meta-data/", "") ?? "";
    if (req.method === "PUT" && req.url === "/latest/api/token") res.end(TOKEN);
    else if (req.headers["x-aws-ec2-metadata-token"] !== TOKEN) res.writeHead(401).end();
    else if (!(key in METADATA)) res.writeHead(404).end();
    else res.end(METADATA[key]);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const STUBS: Record<string, string> = {
  // Real curl for the fake metadata service; the Kubernetes apt key and the API's /readyz are faked.
  curl: `for a in "$@"; do case "$a" in http://127.0.0.1*) exec /usr/bin/curl "$@";; esac; done
for a in "$@"; do case "$a" in *pkgs.k8s.io*) echo FAKE-KEY; exit 0;; *readyz) [ "$STUB_API_READY" = 1 ] && exit 0; exit 7;; esac; done
exit 1`,
  aws: `case "$1 $2" in
"ssm get-parameter") while [ $# -gt 0 ]; do [ "$1" = --name ] && name=$2; shift; done; cat "$STUB_SECRETS/\${name##*/}";;
"ec2 describe-instance-types") printf '3\\t12\\n';;
*) exit 1;;
esac`,
  containerd: `echo "SystemdCgroup = false"`,
  // Reads the key it is piped, as the real gpg does, so curl never writes into a closed pipe.
  gpg: "cat >/dev/null",
  kubeadm: `cfg=""; prev=""; for a in "$@"; do [ "$prev" = --config ] && cfg=$a; prev=$a; done
[ -n "$cfg" ] && cp "$cfg" "$STUB_LOG.kubeadm.yaml"; exit 0`,
};
const NOOP = ["apt-get", "apt-mark", "snap", "modprobe", "sysctl", "systemctl"];

interface Run {
  root: string;
  log: string;
  kubeadmConfig: string;
  file: (path: string) => string;
}

let imds: Server;
let imdsUrl: string;
let secretsDir: string;

/** Runs bash asynchronously: the metadata server lives in this process and must keep answering. */
function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", [script], { env });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

async function runBootstrap(spec: ClusterSpec, groupName: string, apiReady: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "bootstrap-"));
  const root = join(dir, "root");
  const bin = join(dir, "bin");
  mkdirSync(join(root, "sys/class/net/ens5"), { recursive: true });
  writeFileSync(join(root, "sys/class/net/ens5/address"), `${METADATA.mac}\n`);
  mkdirSync(bin);
  const log = join(dir, "log");
  for (const name of NOOP) STUBS[name] ??= "";
  for (const [name, body] of Object.entries(STUBS)) {
    writeFileSync(join(bin, name), `#!/bin/bash\necho "${name} $*" >> "$STUB_LOG"\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const group = instanceGroups(spec).find((g) => g.name === groupName)!;
  const script = join(dir, "user-data");
  writeFileSync(
    script,
    renderUserData(bootstrapConfig(spec, group, { internal: "api.example.test", public: "api.example.com" })),
  );
  const result = await bash(script, {
    PATH: `${bin}:${process.env.PATH}`,
    IMDS_ENDPOINT: imdsUrl,
    BOOTSTRAP_ROOT: root,
    STUB_LOG: log,
    STUB_SECRETS: secretsDir,
    STUB_API_READY: apiReady ? "1" : "0",
    API_WAIT_TRIES: "1",
  });
  expect(result.status, result.stderr).to.equal(0);
  return {
    root,
    log: readFileSync(log, "utf8"),
    kubeadmConfig: existsSync(`${log}.kubeadm.yaml`) ? readFileSync(`${log}.kubeadm.yaml`, "utf8") : "",
    file: (path) => readFileSync(join(root, path), "utf8"),
  };
}

describe("node bootstrap, run against a fake instance-metadata service", function () {
  this.timeout(60000);
  let caHash: string;

  before(async function () {
    requireDebianTool(this, "openssl", "openssl");
    imds = await startImds();
    imdsUrl = `http://127.0.0.1:${(imds.address() as AddressInfo).port}`;
    secretsDir = mkdtempSync(join(tmpdir(), "secrets-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=kubernetes",
        "-keyout",
        join(secretsDir, "ca.key"),
        "-out",
        join(secretsDir, "ca.crt"),
      ],
      { stdio: "ignore" },
    );
    for (const f of ["sa.key", "sa.pub", "front-proxy-ca.crt", "front-proxy-ca.key", "etcd-ca.crt", "etcd-ca.key"]) {
      writeFileSync(join(secretsDir, f), `fake ${f}\n`);
    }
    writeFileSync(join(secretsDir, "bootstrap-token"), "abcdef.0123456789abcdef\n");
    caHash = execFileSync(
      "bash",
      [
        "-c",
        `openssl x509 -pubkey -noout -in ${join(secretsDir, "ca.crt")} | openssl pkey -pubin -outform der | sha256sum | cut -d' ' -f1`,
      ],
      { encoding: "utf8" },
    ).trim();
  });
  after(() => imds?.close());

  it("ENI mode: the kubelet gets --node-ip from metadata and the instance type's max pods", async () => {
    const run = await runBootstrap(specWith({}), "nodes", true);
    expect(run.file("etc/default/kubelet")).to.equal("KUBELET_EXTRA_ARGS=--node-ip=10.0.12.34\n");
    // t3.large: 3 ENIs x 12 addresses: 3 x (12 - 1) + 2 host-network pods - 2 addresses Cilium reserves
    expect(run.file("etc/kubernetes/patches/kubeletconfiguration+merge.yaml")).to.equal("maxPods: 33\n");
    expect(run.log).to.contain("aws ec2 describe-instance-types --region us-east-1 --instance-types t3.large");
    expect(run.file("etc/systemd/network/75-cilium-eni-secondary.network")).to.contain("Property=!INTERFACE=ens5");
    expect(run.file("etc/cloud/cloud.cfg.d/99-disable-network-hotplug.cfg")).to.contain("boot-new-instance");
  });

  it("other modes: neither --node-ip nor computed max pods", async () => {
    for (const ipam of ["", "crd"]) {
      const run = await runBootstrap(
        specWith({ networking: { cilium: { ipam, disableMasquerade: false } } }),
        "nodes",
        true,
      );
      expect(run.file("etc/default/kubelet"), ipam).to.equal("KUBELET_EXTRA_ARGS=\n");
      expect(existsSync(join(run.root, "etc/kubernetes/patches/kubeletconfiguration+merge.yaml")), ipam).to.equal(
        false,
      );
      expect(existsSync(join(run.root, "etc/systemd/network/75-cilium-eni-secondary.network")), ipam).to.equal(false);
      expect(run.log).not.to.contain("describe-instance-types");
    }
  });

  it("a worker fetches only its own secrets and joins with the token and the CA's hash", async () => {
    const run = await runBootstrap(specWith({}), "nodes", true);
    const fetched = run.log
      .split("\n")
      .filter((l) => l.startsWith("aws ssm"))
      .map((l) => /--name (\S+)/.exec(l)![1]);
    expect(fetched).to.deep.equal([
      "/cilium-cluster/dev.k8s.local/node/ca.crt",
      "/cilium-cluster/dev.k8s.local/node/bootstrap-token",
    ]);
    expect(run.log).to.match(/^kubeadm join --config .*\/etc\/kubernetes\/kubeadm.yaml$/m);
    expect(run.kubeadmConfig).to.contain("kind: JoinConfiguration");
    expect(run.kubeadmConfig).to.contain('token: "abcdef.0123456789abcdef"');
    expect(run.kubeadmConfig).to.contain(`caCertHashes: ["sha256:${caHash}"]`);
    expect(run.kubeadmConfig).to.contain('apiServerEndpoint: "api.example.test:443"');
    expect(run.kubeadmConfig).not.to.contain("controlPlane:");
  });

  it("the first control-plane node creates the cluster when no API server answers", async () => {
    const spec = specWith({
      networking: { cilium: { ipam: "", disableMasquerade: false, enableNodePort: true } },
      kubeProxy: { enabled: false },
    });
    const run = await runBootstrap(spec, "control-plane-us-east-1a", false);
    expect(run.log).to.match(/^kubeadm init --config /m);
    expect(run.kubeadmConfig).to.contain("kind: InitConfiguration");
    expect(run.kubeadmConfig).to.contain('podSubnet: "100.96.0.0/11"');
    expect(run.kubeadmConfig).to.contain("skipPhases:\n  - addon/kube-proxy");
    expect(run.kubeadmConfig).to.contain("key: node-role.kubernetes.io/control-plane\n      effect: NoSchedule");
    expect(run.kubeadmConfig).to.contain('certSANs: ["api.example.test", "api.example.com"]');
    expect(run.file("etc/kubernetes/pki/ca.key")).to.contain("PRIVATE KEY");
    expect(run.file("etc/kubernetes/pki/etcd/ca.key")).to.equal("fake etcd-ca.key\n");
    for (const key of ["ca.key", "sa.key", "front-proxy-ca.key", "etcd/ca.key"]) {
      expect(statSync(join(run.root, "etc/kubernetes/pki", key)).mode & 0o777, key).to.equal(0o600);
    }
    expect(statSync(join(run.root, "etc/kubernetes/pki/ca.crt")).mode & 0o777).to.equal(0o644);
    expect(run.log).to.contain("systemctl enable --now kubeadm-leave.service");
  });

  it("a control-plane node joins the running cluster as a control-plane member", async () => {
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", true);
    expect(run.log).to.match(/^kubeadm join --config /m);
    expect(run.kubeadmConfig).to.contain("controlPlane: {}");
    expect(run.kubeadmConfig).not.to.contain("podSubnet");
  });
});
