// The adoption snapshot script as Run Command runs it (sh, through the SSM stand-in), against a real etcd:
// etcdctl inside "the etcd container" (a crictl stand-in that runs the command as the container would, with
// etcd's data directory shared at the same path), verified, uploaded where the node backups go, and
// restorable into a fresh member that serves the keys written before.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { renderAdoptionSnapshotScript } from "../../components/controlPlane/adoptionSnapshotScript";
import { adoptExistingCluster } from "../../components/controlPlane/existingClusterAdoption";
import { requireDebianTool } from "../debianTools";
import { binaryPath, requireBinary } from "../kubernetes/binaries";
import { ACCOUNT, AdoptionAws } from "../standins/adoptionAws";
import { EtcdMember, etcdctl, newMember, startCluster, startMember, stopAll, waitHealthy } from "./realEtcd";
import { itFailsOnEtcd36 } from "./pendingOnProvenEngines";

const BUCKET = "etcd-backups-dev-k8s-local-123456789012-us-east-1";
const RECORD = "/cilium-cluster/dev.k8s.local/control-plane/initialized-test";

/**
 * crictl on a node running kubeadm's etcd pod: `ps` names the etcd container (none when STANDIN_NO_ETCD=1);
 * `exec` runs the command as inside it: etcd at https://127.0.0.1:2379 is the test's member (plain HTTP on
 * loopback, so the TLS flags are logged and dropped), /var/lib/etcd is the node's (the pod's hostPath
 * mount); a binary the image lacks fails as crictl reports it. As cri-tools' cmd/crictl/exec.go does,
 * `--timeout` applies only with `--sync` (ExecSync: the command's output, stderr after stdout, on stdout; a
 * non-zero exit or the timeout is an error, exit status 1); without it, the streaming exec waits for ever.
 */
const CRICTL = `echo "crictl $*" >>"$STUB_LOG"
[ "$1" = --runtime-endpoint ] && [ "$2" = unix:///run/containerd/containerd.sock ] || exit 1
shift 2
case "$1" in
ps) [ "\${STANDIN_NO_ETCD:-0}" = 1 ] || echo 3f2a9c0d1e4b; exit 0;;
exec) shift; sync=0; limit=0
  while [ $# -gt 0 ]; do
    case "$1" in --sync|-s) sync=1;; --timeout) limit=$2; shift;; -*) exit 1;; *) break;; esac
    shift
  done
  [ "$1" = 3f2a9c0d1e4b ] || exit 1
  shift;;
*) exit 1;;
esac
command -v "$1" >/dev/null || { echo "exec failed: executable file not found in \\$PATH: $1" >&2; exit 1; }
args=()
while [ $# -gt 0 ]; do
  case "$1" in
  --cacert|--cert|--key) shift;;
  https://127.0.0.1:2379) args+=("$ETCD_URL");;
  /var/lib/etcd*) args+=("$ADOPTION_ROOT$1");;
  *) args+=("$1");;
  esac
  shift
done
[ "$sync" = 1 ] || exec "\${args[@]}"
out=$(mktemp) err=$(mktemp)
# ExecSync's timeout: STANDIN_EXEC_TIMEOUT seconds here stand for the ones asked.
if [ "$limit" -gt 0 ]; then timeout "\${STANDIN_EXEC_TIMEOUT:-$limit}" "\${args[@]}"; else "\${args[@]}"; fi >"$out" 2>"$err"
code=$?
if [ "$code" -ne 0 ]; then
  echo "execing command in container 3f2a9c0d1e4b synchronously: command '\${args[*]}' exited with $code: $(cat "$err")" >&2
  exit 1
fi
cat "$out"; echo; cat "$err"; echo`;

/** S3 as the CLI uses it: `s3 cp FILE s3://BUCKET/KEY` under STUB_S3, refused without SSE-KMS. */
const AWS = `echo "aws $*" >>"$STUB_LOG"
[ "$1 $2" = "s3 cp" ] || exit 1
case " $* " in *" --sse aws:kms "*) ;; *) echo "upload without SSE-KMS" >&2; exit 1;; esac
dest=\${*: -1}; dest=\${dest#s3://}; src=\${*: -2:1}
mkdir -p "$STUB_S3/$(dirname "$dest")" && cp "$src" "$STUB_S3/$dest"`;

describe("the adoption snapshot against a real etcd, run through Run Command", function () {
  this.timeout(120000);
  let members: EtcdMember[] = [];
  let dir: string;

  before(function () {
    requireBinary(this, "etcd");
    requireBinary(this, "etcdctl");
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "adoption-"));
    mkdirSync(join(dir, "bin"));
    for (const [name, body] of [
      ["crictl", CRICTL],
      ["aws", AWS],
      ["sleep", "exit 0"],
    ]) {
      writeFileSync(join(dir, "bin", name), `#!/bin/bash\n${body}\n`);
      chmodSync(join(dir, "bin", name), 0o755);
    }
    // kubeadm's etcd manifest on a node created before etcd volumes: the data directory is its default.
    mkdirSync(join(dir, "root/etc/kubernetes/manifests"), { recursive: true });
    writeFileSync(join(dir, "root/etc/kubernetes/manifests/etcd.yaml"), "    - --data-dir=/var/lib/etcd\n");
    mkdirSync(join(dir, "root/var/lib/etcd"), { recursive: true });
  });
  afterEach(async () => stopAll(members));

  async function adopt(etcdUrl: string, env: Record<string, string> = {}) {
    const aws = new AdoptionAws({
      instances: [
        {
          id: "i-0old",
          state: "running",
          tags: { KubernetesCluster: "dev.k8s.local", "k8s.io/role/control-plane": "1" },
        },
      ],
      command: {
        env: {
          PATH: `${join(dir, "bin")}:/usr/bin:/bin`,
          ADOPTION_ROOT: join(dir, "root"),
          ETCD_URL: etcdUrl,
          STUB_S3: join(dir, "s3"),
          STUB_LOG: join(dir, "calls"),
          ETCDCTL_API: "3",
          ...env,
        },
      },
    });
    const script = renderAdoptionSnapshotScript({ region: "us-east-1", backupBucket: BUCKET });
    const inputs = {
      region: "us-east-1",
      accountId: ACCOUNT,
      clusterName: "dev.k8s.local",
      initRecord: RECORD,
      script,
      managedTimeoutSeconds: 60,
      commandTimeoutSeconds: 60,
      pollSeconds: 0.05,
    };
    const said = await adoptExistingCluster(inputs, aws).catch((e: Error) => e);
    return { said, aws };
  }

  it("is shellcheck clean", function () {
    requireDebianTool(this, "shellcheck", "shellcheck");
    const script = renderAdoptionSnapshotScript({ region: "us-east-1", backupBucket: BUCKET });
    const r = spawnSync("shellcheck", ["--shell=bash", "--severity=style", "-"], { input: script, encoding: "utf8" });
    expect(r.stdout + r.stderr).to.equal("");
    expect(r.status).to.equal(0);
  });

  itFailsOnEtcd36(
    "uploads a verified snapshot as the node backups do; a fresh member restored from it serves the keys",
    async () => {
      ({ members } = await startCluster(1));
      expect(etcdctl(members[0].clientUrl, "put", "/registry/namespaces/team-a", "kept").status).to.equal(0);
      const { said, aws } = await adopt(members[0].clientUrl);
      expect(said).to.match(/^adopted the running cluster from i-0old: uploaded etcd snapshot etcd\/\d{8}T\d{6}Z\.db$/);
      const key = String(said).split(" ").pop()!;
      const uploaded = join(dir, "s3", BUCKET, key);
      expect(existsSync(uploaded)).to.equal(true);
      // Nothing left on the node; the certificates were kubeadm's etcd server pair.
      expect(readdirSync(join(dir, "root/var/lib/etcd"))).to.deep.equal([]);
      const calls = readFileSync(join(dir, "calls"), "utf8");
      expect(calls).to.contain(
        "--cacert /etc/kubernetes/pki/etcd/ca.crt --cert /etc/kubernetes/pki/etcd/server.crt --key /etc/kubernetes/pki/etcd/server.key snapshot save /var/lib/etcd/adoption-",
      );
      expect(calls).to.match(/^aws s3 cp --region us-east-1 --only-show-errors --sse aws:kms /m);
      expect(aws.parameters.get(RECORD)).to.match(/^adopted /);

      const restored = await newMember("restored", dir);
      const r = spawnSync(
        binaryPath("etcdutl"),
        [
          "snapshot",
          "restore",
          uploaded,
          "--data-dir",
          restored.dataDir,
          "--name",
          "restored",
          "--initial-cluster",
          `restored=${restored.peerUrl}`,
          "--initial-advertise-peer-urls",
          restored.peerUrl,
        ],
        { encoding: "utf8", env: { ...process.env, ETCDCTL_API: "3" } },
      );
      expect(r.status, r.stderr).to.equal(0);
      startMember(restored, `restored=${restored.peerUrl}`, "new");
      members.push(restored);
      await waitHealthy([restored]);
      expect(
        etcdctl(restored.clientUrl, "get", "/registry/namespaces/team-a", "--print-value-only").out.trim(),
      ).to.equal("kept");
    },
  );

  it("fails, creating no record, where no etcd container runs, crictl is missing or etcd does not answer", async () => {
    const none = await adopt("http://127.0.0.1:9", { STANDIN_NO_ETCD: "1" });
    expect(String(none.said), String(none.said)).to.contain(
      "the snapshot command Failed (Failed): no running etcd container on this node",
    );
    expect(none.aws.parameters.size).to.equal(0);
    rmSync(join(dir, "bin/crictl"));
    const noCrictl = await adopt("http://127.0.0.1:9");
    expect(String(noCrictl.said)).to.contain(
      "the snapshot command Failed (Failed): crictl is not installed on this node",
    );
    writeFileSync(join(dir, "bin/crictl"), `#!/bin/bash\n${CRICTL}\n`, { mode: 0o755 });
    // An etcdctl that never returns (etcd accepts but does not answer): ended by ExecSync's timeout.
    writeFileSync(join(dir, "bin/etcdctl"), "#!/bin/bash\nexec /bin/sleep 90\n", { mode: 0o755 });
    const silent = await adopt("http://127.0.0.1:9", { STANDIN_EXEC_TIMEOUT: "3" });
    rmSync(join(dir, "bin/etcdctl"));
    expect(String(silent.said), String(silent.said)).to.contain("the snapshot command Failed");
    expect(silent.aws.parameters.size).to.equal(0);
    expect(existsSync(join(dir, "s3"))).to.equal(false);
    expect(readdirSync(join(dir, "root/var/lib/etcd"))).to.deep.equal([]);
  });
});
