// The bootstrap run for real: bash executes the rendered user data against a fake instance-metadata
// server on 127.0.0.1, with stand-ins for package managers, systemd, kubeadm and the AWS CLI.
import { expect } from "chai";
import { execFileSync, spawn, spawnSync } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "fs";
import { createServer, Server } from "http";
import { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { parseAllDocuments } from "yaml";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { encodeControlPlaneTools } from "../../components/nodes/controlPlaneTools";
import { renderUserData } from "../../components/nodes/userData";
import { validateConfig } from "../../spec/validation";
import type { ClusterSpec } from "../../spec/types";
import { baseConfig, merge, Raw, REGION } from "../fixtures";

const METADATA: Record<string, string> = {
  mac: "0a:1b:2c:3d:4e:5f",
  "local-ipv4": "10.0.12.34",
  "instance-type": "t3.large",
  "placement/availability-zone": "us-east-1a",
  "instance-id": "i-0123456789abcdef0",
};
/** The init record this test's control-plane nodes are told (a file in the secrets directory). */
const INIT_RECORD = "/cilium-cluster/dev.k8s.local/control-plane/initialized-test";
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
  // SSM as documented: GetParameter of a missing name fails with ParameterNotFound; PutParameter without
  // --overwrite fails with ParameterAlreadyExists when the name exists.
  aws: `for a in "$@"; do [ "$prev" = --name ] && name=$a; prev=$a; done; file="$STUB_SECRETS/\${name##*/}"
case "$1 $2" in
"ssm get-parameter") [ -f "$file" ] || { echo "An error occurred (ParameterNotFound) when calling the GetParameter operation: " >&2
  [ "$STUB_RECORD_APPEARS" = 1 ] && echo "i-0another" > "$file"; exit 254; }; cat "$file";;
"ssm put-parameter") [ -f "$file" ] && { echo "An error occurred (ParameterAlreadyExists) when calling the PutParameter operation: The parameter already exists." >&2; exit 254; }
  while [ $# -gt 0 ]; do [ "$1" = --value ] && echo "$2" > "$file"; shift; done;;
"ec2 describe-instance-types") printf '3\\t12\\n';;
"ec2 describe-volumes") case "$*" in *"length(Volumes)"*) echo "\${STUB_VOLUMES_IN_USE:-1}";; *) printf 'vol-0123456789abcdef0\\tavailable\\n';; esac;;
"s3api list-objects-v2") if [ -n "\${STUB_NEWEST_SNAPSHOT:-}" ]; then printf '2026-01-01T00:00:00+00:00\\t%s\\n' "$STUB_NEWEST_SNAPSHOT"; else echo None; fi;;
"s3 cp") echo snapshot > "\${@: -1}";;
"ec2 attach-volume") ;;
*) exit 1;;
esac`,
  containerd: `echo "SystemdCgroup = false"`,
  // A new volume holds no file system; a member's volume does.
  blkid: '[ "$STUB_VOLUME_FORMATTED" = 1 ] || exit 2',
  // Reads the key it is piped, as the real gpg does, so curl never writes into a closed pipe.
  gpg: "cat >/dev/null",
  // kubeadm's preflight for init and control-plane joins (cmd/kubeadm/app/preflight/checks.go): the etcd
  // data directory must be empty (DirAvailableCheck, named DirAvailable-<path, / as ->) unless that check is
  // in --ignore-preflight-errors (case-insensitive; "all" ignores every check).
  kubeadm: `cfg=""; prev=""; ignore=""; for a in "$@"; do [ "$prev" = --config ] && cfg=$a; case "$a" in --ignore-preflight-errors=*) ignore=\${a#*=};; esac; prev=$a; done
data="$BOOTSTRAP_ROOT/var/lib/etcd/data"
if [ "$1" = init ] || { [ "$1" = join ] && grep -q '^controlPlane:' "$cfg"; }; then
  if [ -n "$(ls -A "$data" 2>/dev/null)" ] && ! grep -qiE '(^|,)(all|DirAvailable--var-lib-etcd-data)(,|$)' <<<"$ignore"; then
    echo "[ERROR DirAvailable--var-lib-etcd-data]: /var/lib/etcd/data is not empty" >&2; exit 1
  fi
fi
[ -n "$cfg" ] && cp "$cfg" "$STUB_LOG.kubeadm.yaml"; exit 0`,
  // etcd as this node's member answers: its ID, and its peer URL in the membership (STUB_MEMBER_PEER).
  etcdctl: `case "$*" in
*"endpoint status"*) echo "https://127.0.0.1:2379, 8e9e05c52164694d, 3.5.21, 20 kB, true, false, 2, 8, 8, ";;
*"snapshot restore"*) while [ $# -gt 0 ]; do [ "$1" = --data-dir ] && mkdir -p "$2/member/snap"; shift; done;;
*"member list"*) echo "8e9e05c52164694d, started, ip-10-0-12-34, \${STUB_MEMBER_PEER:-https://10.0.12.34:2380}, https://10.0.12.34:2379, false";;
esac`,
};
const NOOP = ["apt-get", "apt-mark", "snap", "modprobe", "sysctl", "systemctl", "mount", "mkfs.ext4"];

interface Run {
  stderr: string;
  root: string;
  log: string;
  kubeadmConfig: string;
  file: (path: string) => string;
  /** The kubeadm configuration's documents by kind. */
  kubeadm: (kind: string) => Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

let imds: Server;
let imdsUrl: string;
let secretsDir: string;

function specWith(edit: Raw): ClusterSpec {
  const { spec, errors } = validateConfig(merge(baseConfig(), edit), REGION);
  expect(errors).to.deep.equal([]);
  return spec;
}

/** Runs bash asynchronously: the metadata server lives in this process and must keep answering. */
function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", [script], { env });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

async function runBootstrap(
  spec: ClusterSpec,
  groupName: string,
  apiReady: boolean,
  opts: { status?: number; env?: NodeJS.ProcessEnv; files?: Record<string, string> } = {},
): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "bootstrap-"));
  const root = join(dir, "root");
  const bin = join(dir, "bin");
  mkdirSync(join(root, "sys/class/net/ens5"), { recursive: true });
  // The member's etcd volume, attached (NVMe names it by its id).
  mkdirSync(join(root, "dev/disk/by-id"), { recursive: true });
  writeFileSync(join(root, "dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0"), "");
  for (const [path, text] of Object.entries(opts.files ?? {})) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
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
    renderUserData(
      bootstrapConfig(
        spec,
        group,
        { internal: "api.example.test", public: "api.example.com" },
        { initRecord: INIT_RECORD, backupBucket: "etcd-backups-test" },
      ),
    ),
  );
  const result = await bash(script, {
    PATH: `${bin}:${process.env.PATH}`,
    IMDS_ENDPOINT: imdsUrl,
    BOOTSTRAP_ROOT: root,
    STUB_LOG: log,
    STUB_SECRETS: secretsDir,
    STUB_API_READY: apiReady ? "1" : "0",
    API_WAIT_TRIES: "1",
    ...opts.env,
  });
  expect(result.status, result.stderr).to.equal(opts.status ?? 0);
  return {
    stderr: result.stderr,
    root,
    log: readFileSync(log, "utf8"),
    kubeadmConfig: existsSync(`${log}.kubeadm.yaml`) ? readFileSync(`${log}.kubeadm.yaml`, "utf8") : "",
    file: (path) => readFileSync(join(root, path), "utf8"),
    kubeadm: (kind) => {
      const docs = parseAllDocuments(
        existsSync(`${log}.kubeadm.yaml`) ? readFileSync(`${log}.kubeadm.yaml`, "utf8") : "",
      );
      const found = docs.map((d) => d.toJS()).find((d) => d?.kind === kind);
      expect(found, `a ${kind} in the kubeadm configuration`).not.to.equal(undefined);
      return found;
    },
  };
}

describe("node bootstrap, run against a fake instance-metadata service", function () {
  this.timeout(60000);
  let caHash: string;

  before(async () => {
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
    writeFileSync(join(secretsDir, "control-plane-tools"), `${encodeControlPlaneTools()}\n`);
    caHash = execFileSync(
      "bash",
      [
        "-c",
        `openssl x509 -pubkey -noout -in ${join(secretsDir, "ca.crt")} | openssl pkey -pubin -outform der | sha256sum | cut -d' ' -f1`,
      ],
      { encoding: "utf8" },
    ).trim();
  });
  after(() => imds.close());
  const recordFile = () => join(secretsDir, INIT_RECORD.split("/").pop()!);
  beforeEach(() => rmSync(recordFile(), { force: true }));

  it("ENI mode: the kubelet gets --node-ip from metadata and the instance type's max pods", async () => {
    const run = await runBootstrap(specWith({}), "nodes", true);
    expect(run.kubeadm("JoinConfiguration").nodeRegistration.kubeletExtraArgs).to.deep.equal([
      { name: "node-ip", value: "10.0.12.34" },
    ]);
    // t3.large: 3 ENIs x 12 addresses: 3 x (12 - 1) + 2
    expect(run.file("etc/kubernetes/patches/kubeletconfiguration+merge.yaml")).to.equal("maxPods: 35\n");
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
      expect(run.kubeadm("JoinConfiguration").nodeRegistration, ipam).not.to.have.property("kubeletExtraArgs");
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
    const join = run.kubeadm("JoinConfiguration");
    expect(join.discovery.bootstrapToken).to.deep.equal({
      apiServerEndpoint: "api.example.test:443",
      token: "abcdef.0123456789abcdef",
      caCertHashes: [`sha256:${caHash}`],
    });
    expect(join).not.to.have.property("controlPlane");
    expect(join.nodeRegistration.taints).to.deep.equal([]);
  });

  it("the first control-plane node creates the cluster when no API server answers", async () => {
    const spec = specWith({
      networking: { cilium: { ipam: "", disableMasquerade: false, enableNodePort: true } },
      kubeProxy: { enabled: false },
    });
    const run = await runBootstrap(spec, "control-plane-us-east-1a", false);
    expect(run.log).to.match(/^kubeadm init --config /m);
    // It first created the init record, without --overwrite.
    expect(run.log).to.match(
      new RegExp(
        `^aws ssm put-parameter --region us-east-1 --name ${INIT_RECORD} --type String --value i-0123456789abcdef0 `,
        "m",
      ),
    );
    expect(run.log).not.to.contain("--overwrite");
    expect(readFileSync(recordFile(), "utf8")).to.match(/^i-0123456789abcdef0 \d{4}-/);
    const init = run.kubeadm("InitConfiguration");
    expect(init.bootstrapTokens[0]).to.include({ token: "abcdef.0123456789abcdef", ttl: "0s" });
    expect(init.skipPhases).to.deep.equal(["addon/kube-proxy"]);
    expect(init.nodeRegistration.taints).to.deep.equal([
      { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
    ]);
    const cluster = run.kubeadm("ClusterConfiguration");
    expect(cluster.networking).to.deep.equal({ serviceSubnet: "100.64.0.0/13", podSubnet: "100.96.0.0/11" });
    expect(cluster.apiServer.certSANs).to.deep.equal(["api.example.test", "api.example.com"]);
    expect(cluster.controlPlaneEndpoint).to.equal("api.example.test:443");
    expect(run.kubeadm("KubeletConfiguration")).to.include({ cgroupDriver: "systemd" });
    expect(run.file("etc/kubernetes/pki/ca.key")).to.contain("PRIVATE KEY");
    expect(run.file("etc/kubernetes/pki/etcd/ca.key")).to.equal("fake etcd-ca.key\n");
    for (const key of ["ca.key", "sa.key", "front-proxy-ca.key", "etcd/ca.key"]) {
      expect(statSync(join(run.root, "etc/kubernetes/pki", key)).mode & 0o777, key).to.equal(0o600);
    }
    expect(statSync(join(run.root, "etc/kubernetes/pki/ca.crt")).mode & 0o777).to.equal(0o644);
    expect(run.log).to.contain("systemctl enable --now etcd-lifecycle.service etcd-backup.timer");
    expect(run.log).to.contain("apt-get install -y -q etcd-client");
    expect(run.file("etc/systemd/system/etcd-backup.timer.d/interval.conf")).to.equal(
      "[Timer]\nOnUnitActiveSec=\nOnUnitActiveSec=15min\n",
    );
    expect(run.file("etc/systemd/system/etcd-lifecycle.service")).to.contain("etcd_lifecycle_watch");
    expect(statSync(join(run.root, "usr/local/lib/cilium-cluster/control-plane-tools")).mode & 0o777).to.equal(0o755);
    expect(run.file("etc/cilium-cluster/control-plane-tools.env")).to.equal(
      "REGION=us-east-1\nBACKUP_BUCKET=etcd-backups-test\n",
    );
  });

  it("a control-plane node joins the running cluster as a control-plane member", async () => {
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", true);
    expect(run.log).to.match(/^kubeadm join --config /m);
    expect(run.kubeadm("JoinConfiguration").controlPlane).to.deep.equal({});
    expect(run.kubeadmConfig).not.to.contain("podSubnet");
  });

  it("the init zone's control-plane node never runs kubeadm init once the init record exists", async () => {
    writeFileSync(recordFile(), "i-0aaaaaaaaaaaaaaaa 2026-01-01T00:00:00Z\n");
    // No API answers: the node waits for it (here one try) and fails rather than creating a second cluster.
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", false, { status: 1 });
    expect(run.log).not.to.match(/^kubeadm init/m);
    expect(run.log).not.to.contain("put-parameter");
    expect(run.stderr).to.contain("did not answer");
  });

  it("two nodes racing for init: the one that cannot create the record does not init", async () => {
    // Another node creates the record between this node's read and its claim.
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", false, {
      status: 1,
      env: { STUB_RECORD_APPEARS: "1" },
    });
    expect(run.log).to.contain("aws ssm put-parameter");
    expect(run.log).not.to.match(/^kubeadm init/m);
    expect(run.stderr).to.contain("not creating a second cluster");
  });

  it("a control-plane node mounts its member's etcd volume before kubeadm runs", async () => {
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", false);
    const lines = run.log.split("\n");
    const attach = lines.findIndex((l) => l.startsWith("aws ec2 attach-volume"));
    expect(lines[attach]).to.equal(
      "aws ec2 attach-volume --region us-east-1 --volume-id vol-0123456789abcdef0 --instance-id i-0123456789abcdef0 --device /dev/sdf",
    );
    expect(run.log).to.contain(
      "aws ec2 describe-volumes --region us-east-1 --filters Name=tag:KubernetesCluster,Values=dev.k8s.local Name=tag:cilium-cluster/etcd-member,Values=us-east-1a",
    );
    const mount = lines.findIndex((l) => l.startsWith("mount "));
    expect(lines[mount]).to.match(/^mount .*nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0 .*\/var\/lib\/etcd$/);
    expect(lines.findIndex((l) => l.startsWith("mkfs.ext4 "))).to.be.below(mount);
    expect(mount).to.be.below(lines.findIndex((l) => l.startsWith("kubeadm init")));
    expect(run.kubeadm("ClusterConfiguration").etcd).to.deep.equal({ local: { dataDir: "/var/lib/etcd/data" } });
    expect(run.file("etc/fstab")).to.equal(
      "LABEL=etcd /var/lib/etcd ext4 defaults,nofail,x-systemd.required-by=kubelet.service,x-systemd.before=kubelet.service 0 2\n",
    );
  });

  it("a replaced member with an existing volume rejoins as that member, updating its peer URL", async () => {
    writeFileSync(recordFile(), "i-0aaaaaaaaaaaaaaaa 2026-01-01T00:00:00Z\n");
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", false, {
      files: { "var/lib/etcd/data/member/snap/db": "data" },
      env: { STUB_MEMBER_PEER: "https://10.0.99.99:2380", STUB_VOLUME_FORMATTED: "1" },
    });
    expect(run.log).not.to.match(/^kubeadm join/m);
    expect(run.log).not.to.match(/^mkfs/m);
    expect(run.log).not.to.contain("put-parameter");
    expect(run.log).to.match(/^kubeadm init --config \S+ --ignore-preflight-errors=DirAvailable--var-lib-etcd-data$/m);
    expect(run.log).to.match(/member update 8e9e05c52164694d --peer-urls=https:\/\/10\.0\.12\.34:2380$/m);
  });

  it("kubeadm's preflight refuses a control-plane join or init onto existing etcd data (the old bootstrap)", async () => {
    // The bootstrap before etcd volumes joined whenever the API answered: onto a member's data, kubeadm fails.
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", true);
    const dir = join(run.root, "var/lib/etcd/data/member");
    mkdirSync(dir, { recursive: true });
    const bin = join(run.root, "..", "bin");
    const config = join(run.root, "etc/kubernetes/kubeadm.yaml");
    for (const args of [
      ["join", "--config", config],
      ["init", "--config", config],
    ]) {
      const r = spawnSync(join(bin, "kubeadm"), args, {
        env: { ...process.env, BOOTSTRAP_ROOT: run.root, STUB_LOG: join(run.root, "..", "log2") },
        encoding: "utf8",
      });
      expect(r.status, args[0]).to.equal(1);
      expect(r.stderr).to.contain("[ERROR DirAvailable--var-lib-etcd-data]");
    }
    expect(run.log).not.to.match(/member update/m);
  });

  it("the cluster exists, no member answers and no volume data survives: the newest snapshot is restored", async () => {
    writeFileSync(recordFile(), "i-0aaaaaaaaaaaaaaaa 2026-01-01T00:00:00Z\n");
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", false, {
      env: { STUB_NEWEST_SNAPSHOT: "etcd/20260101T000000Z.db" },
    });
    const lines = run.log.split("\n");
    const restore = lines.findIndex((l) =>
      /^etcdctl snapshot restore \S+ --data-dir \S+\/var\/lib\/etcd\/data /.test(l),
    );
    expect(restore, run.log).to.be.greaterThan(0);
    expect(lines[restore]).to.contain("--initial-advertise-peer-urls https://10.0.12.34:2380");
    expect(run.log).to.contain(
      "aws s3 cp --region us-east-1 --only-show-errors s3://etcd-backups-test/etcd/20260101T000000Z.db",
    );
    const init = lines.findIndex((l) => l.startsWith("kubeadm init"));
    expect(init).to.be.greaterThan(restore);
    expect(lines[init]).to.match(/--ignore-preflight-errors=DirAvailable--var-lib-etcd-data$/);
    expect(run.log).not.to.contain("put-parameter");
  });

  it("never restores while another member's volume is attached: that member comes back instead", async () => {
    writeFileSync(recordFile(), "i-0aaaaaaaaaaaaaaaa 2026-01-01T00:00:00Z\n");
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", false, {
      status: 1,
      env: { STUB_NEWEST_SNAPSHOT: "etcd/20260101T000000Z.db", STUB_VOLUMES_IN_USE: "2" },
    });
    expect(run.log).not.to.contain("snapshot restore");
    expect(run.log).not.to.match(/^kubeadm init/m);
    expect(run.stderr).to.contain("did not answer");
  });

  it("a bootstrap retried after its own kubeadm init failed may init again: the record is its own", async () => {
    writeFileSync(recordFile(), "i-0123456789abcdef0 2026-01-01T00:00:00Z\n");
    const run = await runBootstrap(specWith({}), "control-plane-us-east-1a", false);
    expect(run.log).to.match(/^kubeadm init --config \S+$/m);
    expect(readFileSync(recordFile(), "utf8")).to.equal("i-0123456789abcdef0 2026-01-01T00:00:00Z\n");
  });
});
