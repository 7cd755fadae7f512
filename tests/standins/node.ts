/**
 * A node for the bootstrap tests: a scratch directory standing in for `/` with what Ubuntu 24.04's server
 * image holds, a fake instance-metadata service (IMDSv2), and stand-ins for the tools the bootstrap calls.
 * `kubeadm` enforces kubeadm's contract (kubeadm.ts); `apt-get` installs the binaries of the packages it is
 * asked for into the scratch root and can fail with dpkg's lock error; `aws` exists only once the packages
 * step has installed its snap, can throttle, and holds the instance on its launch hook; `/readyz` can
 * answer only after a number of tries; `sysctl --system` applies the sysctl.d files to the scratch /proc;
 * SSM keeps the parameters a node creates, EC2 has the member's etcd volume, S3 the newest snapshot, `ctr`
 * mounts the etcd image, whose `etcdctl` answers as this node's member and whose `etcdutl` restores.
 * User data runs as cloud-init runs it (once, as root's script), the bootstrap as systemd runs its service:
 * ExecStart with the unit's Environment, again after each failure while Restart=on-failure.
 */
import { execFileSync, spawn } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "fs";
import { createServer, Server } from "http";
import { AddressInfo } from "net";
import { tmpdir } from "os";
import { join, relative } from "path";
import { ETCD_DATA_DIR } from "../../components/nodes/controlPlaneState";
import { controlPlaneToolsParts, toolsPartParameter } from "../../components/nodes/controlPlaneTools";
import { BOOTSTRAP_SERVICE } from "../../components/nodes/systemdUnits";
import { LAUNCH_HOOK_NAME } from "../../components/nodes/launchHook";
import { clusterPki } from "./pki";

const PROJECT = join(__dirname, "../..");

export const METADATA: Record<string, string> = {
  mac: "0a:1b:2c:3d:4e:5f",
  "local-ipv4": "10.0.12.34",
  "instance-type": "t3.large",
  "instance-id": "i-0123456789abcdef0",
  "placement/availability-zone": "us-east-1a",
};
const TOKEN = "fake-imds-token";

/** IMDSv2: a session token first, then metadata only with that token. `zone` is read per request. */
export function startImds(zone: () => string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const key = req.url?.replace("/latest/meta-data/", "") ?? "";
    const data = { ...METADATA, "placement/availability-zone": zone() };
    if (req.method === "PUT" && req.url === "/latest/api/token") res.end(TOKEN);
    else if (req.headers["x-aws-ec2-metadata-token"] !== TOKEN) res.writeHead(401).end();
    else if (!(key in data)) res.writeHead(404).end();
    else res.end(data[key as keyof typeof data]);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/** Binaries of Ubuntu 24.04's server image that kubeadm's preflight looks for; conntrack, socat, ebtables are not. */
const BASE_IMAGE = [
  "/usr/bin/mount",
  "/usr/bin/nsenter",
  "/usr/bin/touch",
  "/usr/bin/ip",
  "/usr/sbin/tc",
  "/usr/sbin/iptables",
];

/** What `apt-get install` puts on PATH, for the packages whose binaries kubeadm's preflight checks. */
const PACKAGE_BINARIES: Record<string, string[]> = {
  conntrack: ["/usr/sbin/conntrack"],
  socat: ["/usr/bin/socat"],
  ebtables: ["/usr/sbin/ebtables"],
  ethtool: ["/usr/sbin/ethtool"],
  iptables: ["/usr/sbin/iptables"],
  iproute2: ["/usr/bin/ip", "/usr/sbin/tc"],
  kubelet: ["/usr/bin/kubelet"],
  "cri-tools": ["/usr/bin/crictl"],
};

/** Where the AWS CLI's snap puts `aws`: on PATH from the start, but empty until `snap install aws-cli`. */
const SNAP_BIN = "/snap/bin";

/** A counter in the state directory, shared by the stand-ins: `n=$(count NAME)` is the calls before this one. */
const COUNT = `count() { local n; n=$(cat "$STANDIN_STATE/$1" 2>/dev/null || echo 0); echo $((n + 1)) >"$STANDIN_STATE/$1"; echo "$n"; }`;

const STUBS: Record<string, string> = {
  // Real curl for the fake metadata service; the Kubernetes apt key and the API's /readyz are faked.
  curl: `${COUNT}
for a in "$@"; do case "$a" in http://127.0.0.1*) exec /usr/bin/curl "$@";; esac; done
for a in "$@"; do case "$a" in
*pkgs.k8s.io*) echo FAKE-KEY; exit 0;;
*readyz) [ "$(count readyz)" -ge "\${STANDIN_API_READY_AFTER:-0}" ] && exit 0; exit 7;;
esac; done
exit 1`,
  // SSM as documented: GetParameter of a missing name fails with ParameterNotFound; PutParameter without
  // --overwrite fails with ParameterAlreadyExists when the name exists. Parameters the node creates live in
  // its state directory; the cluster's secrets are read from STUB_SECRETS.
  aws: `${COUNT}
for a in "$@"; do [ "$prev" = --name ] && name=$a; prev=$a; done
created="$STANDIN_STATE/parameters/\${name##*/}"; file="$created"; [ -f "$file" ] || file="$STUB_SECRETS/\${name##*/}"
case "$1 $2" in
"ssm get-parameter")
  if [ "$(count ssm)" -lt "\${STANDIN_SSM_THROTTLES:-0}" ]; then
    echo "An error occurred (ThrottlingException) when calling the GetParameter operation: Rate exceeded" >&2; exit 254
  fi
  if [ -z "\${name##*/}" ] || [ ! -f "$file" ]; then
    echo "An error occurred (ParameterNotFound) when calling the GetParameter operation: " >&2
    # Another node creates the record between this node's read and its claim.
    [ "\${STANDIN_RECORD_APPEARS:-0}" = 1 ] && mkdir -p "$STANDIN_STATE/parameters" && echo "i-0another" >"$created"
    exit 254
  fi
  cat "$file";;
"ssm put-parameter")
  if [ -f "$file" ]; then
    echo "An error occurred (ParameterAlreadyExists) when calling the PutParameter operation: The parameter already exists." >&2; exit 254
  fi
  mkdir -p "$STANDIN_STATE/parameters"; while [ $# -gt 0 ]; do [ "$1" = --value ] && echo "$2" >"$created"; shift; done;;
"ec2 describe-instances")
  # The cluster's control-plane instances (the fixtures' cluster), pending or running: this node, as
  # --query '...InstanceId' --output text prints it.
  case "$*" in
  *"Name=tag:KubernetesCluster,Values=dev.k8s.local Name=tag:k8s.io/role/control-plane,Values=1 Name=instance-state-name,Values=pending,running"*)
    echo "${METADATA["instance-id"]}";;
  *) exit 252;;
  esac;;
"ec2 describe-instance-types") printf '3\\t12\\n';;
"ec2 describe-volumes")
  # The member volume's state tag: set by create-tags, at first STANDIN_VOLUME_STATE_TAG ("None": no tag).
  tag=$(cat "$STANDIN_STATE/volume-state-tag" 2>/dev/null || echo "\${STANDIN_VOLUME_STATE_TAG:-None}")
  case "$*" in
  # This instance's volume (filter attachment.instance-id): "VOLUME_ID STATE_TAG".
  *attachment.instance-id*) printf 'vol-0123456789abcdef0\\t%s\\n' "$tag";;
  # Every member volume of the cluster: this node's, attached to it, and STANDIN_OTHER_VOLUMES (rows of
  # "VOLUME_ID STATE ATTACHED_TO STATE_TAG", as the CLI prints them).
  # The instances member volumes are attached to (--query 'Volumes[].Attachments[].InstanceId'): this node
  # and the third column of STANDIN_OTHER_VOLUMES' attached rows, tab-separated as the CLI prints a list.
  *"Volumes[].Attachments[].InstanceId"*) { echo "${METADATA["instance-id"]}"
    [ -z "\${STANDIN_OTHER_VOLUMES:-}" ] || printf '%s\\n' "$STANDIN_OTHER_VOLUMES" | awk '$2 == "in-use" { print $3 }'; } | paste -sd '\\t';;
  *"Volumes[]."*) printf 'vol-0123456789abcdef0\\tin-use\\t%s\\t%s\\n' "${METADATA["instance-id"]}" "$tag"
    [ -z "\${STANDIN_OTHER_VOLUMES:-}" ] || printf '%s\\n' "$STANDIN_OTHER_VOLUMES";;
  *) printf 'vol-0123456789abcdef0\\t%s\\t%s\\n' "\${STANDIN_VOLUME_STATE:-available}" "\${STANDIN_VOLUME_ATTACHED_TO:-None}";;
  esac;;
"ec2 create-tags")
  # CreateTags on the member volume: only its state tag (what the node's IAM statement allows).
  while [ $# -gt 0 ]; do case "$1" in --resources) resource=$2;; --tags) tags=$2;; esac; shift; done
  [ "$resource" = vol-0123456789abcdef0 ] || exit 254
  # The first STANDIN_MEMBER_TAG_FAILURES calls tagging it member fail, as a throttled call does.
  if [ "$tags" = Key=cilium-cluster/etcd-state,Value=member ] && [ "$(count member-tag)" -lt "\${STANDIN_MEMBER_TAG_FAILURES:-0}" ]; then
    echo "An error occurred (RequestLimitExceeded) when calling the CreateTags operation: Request limit exceeded." >&2; exit 254
  fi
  case "$tags" in Key=cilium-cluster/etcd-state,Value=*) echo "\${tags##*Value=}" >"$STANDIN_STATE/volume-state-tag";; *) exit 254;; esac;;
"ec2 attach-volume") ;;
"ec2 describe-instances") ;; # no instance of the cluster at the address asked for
"route53 change-resource-record-sets")
  # ChangeResourceRecordSets: the batch is applied to the zone and the change is PENDING until Route53's
  # servers have it; --query ChangeInfo.Id --output text prints the change's id.
  while [ $# -gt 0 ]; do case "$1" in --hosted-zone-id) zone=$2;; --change-batch) batch=$2;; esac; shift; done
  [ -n "$zone" ] || { echo "aws: error: the following arguments are required: --hosted-zone-id" >&2; exit 252; }
  mkdir -p "$STANDIN_STATE/route53-zones"; echo "$batch" >"$STANDIN_STATE/route53-zones/$zone"
  echo /change/C0123456789STANDIN;;
"route53 get-change")
  # GetChange: PENDING for the first STANDIN_ROUTE53_PENDING asks (default 1), then INSYNC.
  if [ "$(count route53-changes)" -lt "\${STANDIN_ROUTE53_PENDING:-1}" ]; then echo PENDING; else echo INSYNC; fi;;
"s3api list-objects-v2")
  # --query 'Contents[].[LastModified, Key]' --output text: one row a snapshot under --prefix, "None" for none.
  while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix=$2; shift; done
  case "\${STANDIN_NEWEST_SNAPSHOT:-}" in
  "") echo None;;
  "$prefix"*) printf '2026-01-01T00:00:00+00:00\\t%s\\n' "$STANDIN_NEWEST_SNAPSHOT";;
  *) echo None;;
  esac;;
"s3 cp") echo snapshot >"\${@: -1}";;
"autoscaling describe-auto-scaling-instances")
  # The instance's group and its lifecycle state (Pending:Wait until the launch hook completes), as
  # --query 'AutoScalingInstances[0].[AutoScalingGroupName,LifecycleState]' --output text prints them.
  while [ $# -gt 0 ]; do [ "$1" = --instance-ids ] && id=$2; shift; done
  [ "$id" = "${METADATA["instance-id"]}" ] || { echo None; exit 0; }
  printf '%s\\t%s\\n' "$STANDIN_GROUP" "$(cat "$STANDIN_STATE/lifecycle" 2>/dev/null || echo Pending:Wait)";;
"autoscaling complete-lifecycle-action")
  if [ "$(count hook)" -lt "\${STANDIN_HOOK_THROTTLES:-0}" ]; then
    echo "An error occurred (Throttling) when calling the CompleteLifecycleAction operation: Rate exceeded" >&2; exit 254
  fi
  while [ $# -gt 0 ]; do case "$1" in
    --auto-scaling-group-name) group=$2;; --lifecycle-hook-name) hook=$2;; --instance-id) id=$2;;
    --lifecycle-action-result) result=$2;; esac; shift; done
  # Auto Scaling's CompleteLifecycleAction: only an instance waiting on that hook of that group. An instance
  # no longer waiting gets this ValidationError; so does a wrong group or hook name here (Auto Scaling's text
  # for that case is not documented: the tests of a wrong name check the node's state, not the message).
  if [ "$group/$hook/$id" != "$STANDIN_GROUP/$STANDIN_LAUNCH_HOOK/${METADATA["instance-id"]}" ] ||
    [ "$(cat "$STANDIN_STATE/lifecycle" 2>/dev/null || echo Pending:Wait)" != Pending:Wait ]; then
    echo "An error occurred (ValidationError) when calling the CompleteLifecycleAction operation: No active Lifecycle Action found with instance ID $id" >&2; exit 254
  fi
  case "$result" in CONTINUE) echo InService;; ABANDON) echo Terminating;; *) exit 252;; esac >"$STANDIN_STATE/lifecycle"
  # The answer lost on its way back (STANDIN_HOOK_ANSWERS_LOST times): the action is completed all the same.
  if [ "$(count lost)" -lt "\${STANDIN_HOOK_ANSWERS_LOST:-0}" ]; then
    echo 'Connection was closed before we received a valid response from endpoint URL: "https://autoscaling.us-east-1.amazonaws.com/".' >&2; exit 255
  fi;;
*) exit 1;;
esac`,
  snap: `[ "$1 $2 $3" = "install aws-cli --classic" ] || exit 1
mkdir -p "$STANDIN_ROOT${SNAP_BIN}" && cp "$STANDIN_STATE/aws-cli" "$STANDIN_ROOT${SNAP_BIN}/aws"`,
  // dpkg's journal of an interrupted run is /var/lib/dpkg/updates/: apt-get refuses to install until
  // `dpkg --configure -a` has finished it.
  dpkg: `[ "$*" = "--configure -a" ] || exit 2
rm -f "$STANDIN_ROOT"/var/lib/dpkg/updates/*`,
  // The member's volume: a new one holds no file system; a member's does (STANDIN_VOLUME_FORMATTED=1).
  blkid: '[ "${STANDIN_VOLUME_FORMATTED:-0}" = 1 ] || exit 2',
  mount: 'touch "$STANDIN_STATE/mounted"',
  mountpoint: '[ -e "$STANDIN_STATE/mounted" ]',
  // containerd's ctr for images in the kubelet's namespace: an image is mounted only once in the store (ctr
  // images mount unpacks a local image): pulled, or there before (STANDIN_IMAGES_PRESENT, one a line: pulled by
  // the kubelet, through a registry mirror say). A pull fails when the registry cannot be reached
  // (STANDIN_REGISTRY_UNREACHABLE=1). \`images ls -q name==NAME\` prints NAME when the store has it. The etcd
  // image holds the etcd tools below (ETCD_IMAGE_TOOLS), those STANDIN_ETCD_IMAGE_TOOLS names (default all).
  ctr: `[ "$1 $2" = "-n k8s.io" ] || exit 1
present() { { cat "$STANDIN_STATE/pulled" 2>/dev/null; printf '%s\n' "\${STANDIN_IMAGES_PRESENT:-}"; } | grep -xF "$1"; }
case "$3 $4" in
"images pull") if [ "\${STANDIN_REGISTRY_UNREACHABLE:-0}" = 1 ]; then
    echo "ctr: failed to resolve reference $5: failed to do request: dial tcp: i/o timeout" >&2; exit 1
  fi
  echo "$5" >>"$STANDIN_STATE/pulled";;
"images ls") [ "$5" = -q ] && [ "\${6%%==*}" = name ] || exit 1; present "\${6#name==}" || true;;
"images mount") present "$5" >/dev/null || { echo "ctr: image $5: not found" >&2; exit 1; }
  case "$5" in registry.k8s.io/etcd:*) mkdir -p "$6/usr/local/bin"
    for t in \${STANDIN_ETCD_IMAGE_TOOLS:-etcdctl etcdutl}; do cp "$STANDIN_STATE/etcd-image/$t" "$6/usr/local/bin/"; done;; esac
  echo "sha256:chain"; echo "$6";;
"images unmount") [ "$5" = --rm ] && rm -rf "\${6:?}"/* ;;
*) exit 1;;
esac`,
  "apt-get": `${COUNT}
if [ "$(count apt)" -lt "\${STANDIN_APT_FAILURES:-0}" ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 1234 (unattended-upgr)" >&2; exit 100
fi
[ "$1" = -o ] && shift 2; [ "$1" = -q ] && shift
if [ "$1" = install ] && [ -n "$(ls -A "$STANDIN_ROOT/var/lib/dpkg/updates" 2>/dev/null)" ]; then
  echo "E: dpkg was interrupted, you must manually run 'dpkg --configure -a' to correct the problem." >&2; exit 100
fi
if [ "$1" = install ]; then for a in "$@"; do case "\${a%%=*}" in
${Object.entries(PACKAGE_BINARIES)
  .map(
    ([p, bins]) =>
      `${p}) for b in ${bins.join(" ")}; do mkdir -p "$STANDIN_ROOT\${b%/*}"; touch "$STANDIN_ROOT$b"; done;;`,
  )
  .join("\n")}
esac; done; fi`,
  containerd: `echo "SystemdCgroup = false"`,
  // A kernel without the module (STANDIN_MODPROBE_MISSING names it), as modprobe reports it.
  modprobe: `[ "$1" = "\${STANDIN_MODPROBE_MISSING:-}" ] || exit 0
echo "modprobe: FATAL: Module $1 not found in directory /lib/modules/6.8.0-1015-aws" >&2; exit 1`,
  // Enabling the etcd units can fail (STANDIN_ETCD_ENABLE_FAILURES times), as a unit systemd has not loaded
  // yet does.
  systemctl: `${COUNT}
if [[ "$*" == "enable --now etcd-lifecycle.service "* ]] && [ "$(count enable)" -lt "\${STANDIN_ETCD_ENABLE_FAILURES:-0}" ]; then
  echo "Failed to enable unit: Unit file etcd-lifecycle.service does not exist." >&2; exit 1
fi`,
  // Reads the key it is given, as the real gpg does.
  gpg: "cat >/dev/null",
  // Applies the sysctl.d files to the scratch /proc, as sysctl --system does to the real one.
  sysctl: `[ "$1" = --system ] || exit 1
cat "$STANDIN_ROOT"/etc/sysctl.d/*.conf 2>/dev/null | while IFS='= ' read -r key value; do
  case "$key" in ''|'#'*) continue;; esac
  mkdir -p "$STANDIN_ROOT/proc/sys/$(dirname "\${key//.//}")"; echo "$value" >"$STANDIN_ROOT/proc/sys/\${key//.//}"
done`,
  kubeadm: `exec node -r "${PROJECT}/node_modules/ts-node/register/transpile-only" "${PROJECT}/tests/standins/kubeadm.ts" "$@"`,
};
const NOOP = ["apt-mark", "mkfs.ext4"];

/** etcdctl and etcdutl in the etcd image (registry.k8s.io/etcd: /usr/local/bin), not on the node's PATH. */
const ETCD_IMAGE_TOOLS: Record<string, string> = {
  // etcd as this node's member answers: its ID, and its peer URL in the membership (STANDIN_MEMBER_PEER);
  // its health check, as etcdctl reports a member that cannot commit (STANDIN_ETCD_UNHEALTHY=1).
  etcdctl: `case "$*" in
*"endpoint health"*) [ "\${STANDIN_ETCD_UNHEALTHY:-0}" = 1 ] || exit 0
  echo "https://10.0.12.34:2379 is unhealthy: failed to commit proposal: context deadline exceeded" >&2
  echo "Error: unhealthy cluster" >&2; exit 1;;
*"endpoint status"*) echo "https://127.0.0.1:2379, 8e9e05c52164694d, 3.5.21, 20 kB, true, false, 2, 8, 8, ";;
*"member list"*) echo "8e9e05c52164694d, started, ip-10-0-12-34, \${STANDIN_MEMBER_PEER:-https://10.0.12.34:2380}, https://10.0.12.34:2379, false";;
*"snapshot restore"*|*"snapshot status"*)
  # etcd 3.5's etcdctl still restores (deprecated); 3.6's has no such command (STANDIN_ETCDCTL_VERSION).
  if [ "\${STANDIN_ETCDCTL_VERSION:-3.6}" != 3.5 ]; then echo 'Error: unknown command "'"$2"'" for "etcdctl snapshot"' >&2; exit 1; fi
  echo "Deprecated: Use 'etcdutl snapshot $2' instead." >&2
  case "$*" in *"snapshot restore"*) while [ $# -gt 0 ]; do [ "$1" = --data-dir ] && mkdir -p "$2/member/snap"; shift; done;; esac;;
esac`,
  etcdutl: `case "$*" in
"snapshot restore "*) while [ $# -gt 0 ]; do [ "$1" = --data-dir ] && mkdir -p "$2/member/snap"; shift; done;;
"snapshot status "*) ;;
*) exit 1;;
esac`,
};

export interface Node {
  dir: string;
  root: string;
  state: string;
  env: NodeJS.ProcessEnv;
  /** Every stand-in call, one line each: `name args...`. */
  log: () => string;
  file: (path: string) => string;
  exists: (path: string) => boolean;
  /** The configurations kubeadm was given, in order. */
  kubeadmConfigs: () => string[];
  /** Every file below the root with its content, to compare two moments. */
  snapshot: () => Record<string, string>;
}

export interface Options {
  imdsUrl: string;
  secrets: string;
  kubernetesVersion: string;
  /** Extra environment: STANDIN_* knobs, API_WAIT_TRIES. */
  env?: Record<string, string>;
  /** SSM parameters that exist before the node boots (the init record), by name. */
  parameters?: Record<string, string>;
  /** Files on the node before it boots (a member's data on its volume), by path below the root. */
  files?: Record<string, string>;
}

export function newNode(options: Options): Node {
  const dir = mkdtempSync(join(tmpdir(), "node-"));
  const root = join(dir, "root");
  const bin = join(dir, "bin");
  const state = join(dir, "state");
  for (const d of [root, bin, state]) mkdirSync(d);
  mkdirSync(join(root, "sys/class/net/ens5"), { recursive: true });
  writeFileSync(join(root, "sys/class/net/ens5/address"), `${METADATA.mac}\n`);
  // The member's etcd volume once attached (NVMe names it by its id).
  mkdirSync(join(root, "dev/disk/by-id"), { recursive: true });
  writeFileSync(join(root, "dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0"), "");
  for (const [name, value] of Object.entries(options.parameters ?? {})) {
    mkdirSync(join(state, "parameters"), { recursive: true });
    writeFileSync(join(state, "parameters", name.split("/").pop()!), `${value}\n`);
  }
  for (const [path, text] of Object.entries(options.files ?? {})) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  for (const b of BASE_IMAGE) {
    mkdirSync(join(root, b, ".."), { recursive: true });
    writeFileSync(join(root, b), "");
  }
  const log = join(state, "calls");
  for (const [name, body] of [...Object.entries(STUBS), ...NOOP.map((n) => [n, ""])]) {
    // The AWS CLI is a snap: it reaches PATH only when the packages step installs it.
    const path = name === "aws" ? join(state, "aws-cli") : join(bin, name);
    writeFileSync(path, `#!/bin/bash\necho "${name} $*" >> "$STUB_LOG"\n${body}\n`);
    chmodSync(path, 0o755);
  }
  mkdirSync(join(state, "etcd-image"));
  for (const [name, body] of Object.entries(ETCD_IMAGE_TOOLS)) {
    const path = join(state, "etcd-image", name);
    writeFileSync(path, `#!/bin/bash\necho "${name} $*" >> "$STUB_LOG"\n${body}\n`);
    chmodSync(path, 0o755);
  }
  // Until then `aws` is a command bash does not find (an AWS CLI of the machine running the tests is no node's).
  writeFileSync(join(bin, "aws"), `#!/bin/bash\necho "aws: command not found" >&2\nexit 127\n`);
  chmodSync(join(bin, "aws"), 0o755);
  const env = {
    PATH: `${join(root, SNAP_BIN)}:${bin}:${process.env.PATH}`,
    IMDS_ENDPOINT: options.imdsUrl,
    BOOTSTRAP_ROOT: root,
    BOOTSTRAP_RETRY_DELAY: "0",
    API_WAIT_INTERVAL: "0",
    ETCD_DNS_INTERVAL: "0",
    API_WAIT_TRIES: "20",
    STUB_LOG: log,
    STUB_SECRETS: options.secrets,
    STANDIN_ROOT: root,
    STANDIN_STATE: state,
    // The instance's Auto Scaling group and the launch hook whose action it waits on: the one the program
    // declares on every group. Empty: no action of that hook waits (the instance launched before its group
    // had the hook, or it was completed already), while Auto Scaling may still report it Pending:Wait.
    STANDIN_GROUP: "nodes.dev.k8s.local",
    STANDIN_LAUNCH_HOOK: LAUNCH_HOOK_NAME,
    KUBEADM_VERSION: options.kubernetesVersion,
    // The cluster's ClusterConfiguration is the one every control-plane group's init configuration holds.
    STANDIN_CLUSTER_ETCD_DATA_DIR: ETCD_DATA_DIR,
    TS_NODE_PROJECT: join(PROJECT, "tsconfig.json"),
    ...options.env,
  };
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
  return {
    dir,
    root,
    state,
    env,
    log: () => (existsSync(log) ? readFileSync(log, "utf8") : ""),
    file: (path) => readFileSync(join(root, path), "utf8"),
    exists: (path) => existsSync(join(root, path)),
    kubeadmConfigs: () =>
      readdirSync(state)
        .filter((f) => /^kubeadm-\d+-\w+\.yaml$/.test(f))
        .sort((a, b) => Number(a.split("-")[1]) - Number(b.split("-")[1]))
        .map((f) => readFileSync(join(state, f), "utf8")),
    snapshot: () => Object.fromEntries(walk(root).map((f) => [relative(root, f), readFileSync(f, "utf8")])),
  };
}

export interface Exit {
  status: number | null;
  stderr: string;
}

/** Runs a program asynchronously: the metadata server lives in this process and must keep answering. */
export function run(program: string, args: string[], env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

/** Runs user data as cloud-init does: once, a script. */
export async function runUserData(node: Node, userData: string): Promise<Exit> {
  const script = join(node.dir, "user-data");
  writeFileSync(script, userData);
  return run("bash", [script], node.env);
}

/** The bootstrap service as systemd runs it: ExecStart, again after each failure (at most `runs` times). */
export async function runService(node: Node, runs = 6, args: string[] = []): Promise<Exit & { runs: number }> {
  const unit = node.file(`etc/systemd/system/${BOOTSTRAP_SERVICE}`);
  const setting = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, "gm"))].map((m) => m[1]);
  const environment = Object.fromEntries(
    setting("Environment")
      .map((e) => e.split("=", 2) as [string, string])
      // The stand-ins come first on PATH; everything else is the unit's.
      .filter(([k]) => k !== "PATH"),
  );
  const [execStart] = setting("ExecStart");
  const restart = setting("Restart")[0] === "on-failure";
  let exit: Exit = { status: null, stderr: "" };
  let stderr = "";
  for (let n = 1; n <= runs; n++) {
    exit = await run(join(node.root, execStart), args, { ...node.env, ...environment });
    stderr += exit.stderr;
    if (exit.status === 0 || !restart) return { ...exit, stderr, runs: n };
  }
  return { ...exit, stderr, runs };
}

/** The cluster's CAs, keys and join token as SSM would hand them out (pki.ts); and the CA's hash. */
export function makeSecrets(): { dir: string; caHash: string } {
  const dir = mkdtempSync(join(tmpdir(), "secrets-"));
  for (const [name, text] of Object.entries(clusterPki())) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "bootstrap-token"), "abcdef.0123456789abcdef\n");
  controlPlaneToolsParts().forEach((part, i) => writeFileSync(join(dir, toolsPartParameter(i)), `${part}\n`));
  const caHash = execFileSync(
    "bash",
    [
      "-c",
      `openssl x509 -pubkey -noout -in ${join(dir, "ca.crt")} | openssl pkey -pubin -outform der | sha256sum | cut -d' ' -f1`,
    ],
    { encoding: "utf8" },
  ).trim();
  return { dir, caHash };
}
