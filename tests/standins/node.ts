/**
 * A node for the bootstrap tests: a scratch directory standing in for `/` with what Ubuntu 24.04's server
 * image holds, an instance of the AWS fake (tests/standins/aws.ts) launched into its Auto Scaling group, with
 * its metadata service and what the account holds for it (the cluster's secrets; a worker's credential to
 * join, as the control plane issues it), and stand-ins for the tools the bootstrap calls. `kubeadm` enforces
 * kubeadm's contract (kubeadm.ts); `apt-get` installs the binaries of the packages it is asked for into the
 * scratch root and can fail with dpkg's lock error; `aws` exists only once the packages step has installed its
 * snap, and is the fake's CLI; `/readyz` can answer only after a number of tries; `sysctl --system` applies the
 * sysctl.d files to the scratch /proc; `ctr` mounts the etcd image, whose `etcdctl` answers as the cluster's
 * etcd members.
 * User data runs as cloud-init runs it (once, as root's script), the bootstrap as systemd runs its service:
 * ExecStart with the unit's Environment, again after each failure while Restart=on-failure.
 */
import { spawn } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join, relative } from "path";
import { CLUSTER_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import { groupLifecycleHooks } from "../../components/nodes/lifecycleHooks";
import { BOOTSTRAP_SERVICE } from "../../components/nodes/systemdUnits";
import { KUBERNETES_DIR } from "../../components/nodes/nodeFacts";
import { AUTHENTICATOR_PORT } from "../../components/nodes/authenticator";
import { instanceCredentialPrefix, secretsKeyAlias } from "../../components/nodes/secretPaths";
import { privateDnsName, type AwsFake, type Instance } from "./aws";
import { compiledStandIn } from "./compiledStandIn";
import { clusterPki, KUBEADM_PKI_PATH, signClientCertificate } from "./pki";

const PROJECT = join(__dirname, "../..");

/** The node's instance, as EC2 launches it. */
export const NODE_INSTANCE = {
  id: "i-0123456789abcdef0",
  privateIp: "10.0.12.34",
  instanceType: "t3.large",
  mac: "0a:1b:2c:3d:4e:5f",
};

/**
 * The host's name as Ubuntu on EC2 sets it: the short form of the instance's private DNS name. The node's Node
 * is named after the long form (STANDIN_NODE_NAME), from instance metadata, not after this.
 */
export const NODE_HOSTNAME = "ip-10-0-12-34";

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

/**
 * The machine losing power (or systemd killing the service) in the middle of a command: the first call whose
 * `NAME ARGS` holds STANDIN_KILL_AT kills the bootstrap's whole process group, itself included, before it
 * does anything. `run` starts each program in a process group of its own.
 */
const KILL = `if [ -n "\${STANDIN_KILL_AT:-}" ] && [[ "$(basename "$0") $*" == *"$STANDIN_KILL_AT"* ]] && mkdir "$STANDIN_STATE/killed" 2>/dev/null; then
  kill -KILL -- "-$(ps -o pgid= $$ | tr -d ' ')"
fi`;

const STUBS: Record<string, string> = {
  // Real curl for the fake metadata service; the Kubernetes apt key and the API's /readyz are faked, and the
  // authenticator's health check answers once its static pod's manifest is where the kubelet runs it from.
  curl: `${COUNT}
for a in "$@"; do case "$a" in http://127.0.0.1*) exec /usr/bin/curl "$@";; esac; done
for a in "$@"; do case "$a" in
*pkgs.k8s.io*) echo FAKE-KEY; exit 0;;
*readyz) [ "$(count readyz)" -ge "\${STANDIN_API_READY_AFTER:-0}" ] && exit 0; exit 7;;
https://127.0.0.1:${AUTHENTICATOR_PORT}/healthz) [ -f "$STANDIN_ROOT${KUBERNETES_DIR}/manifests/aws-iam-authenticator.yaml" ] && exit 0; exit 7;;
esac; done
exit 1`,
  snap: `[ "$1 $2 $3" = "install aws-cli --classic" ] || exit 1
mkdir -p "$STANDIN_ROOT${SNAP_BIN}" && cp "$STANDIN_STATE/aws-cli" "$STANDIN_ROOT${SNAP_BIN}/aws"`,
  // dpkg's journal of an interrupted run is /var/lib/dpkg/updates/: apt-get refuses to install until
  // `dpkg --configure -a` has finished it.
  dpkg: `[ "$*" = "--configure -a" ] || exit 2
rm -f "$STANDIN_ROOT"/var/lib/dpkg/updates/*`,
  // containerd's ctr for images in the kubelet's namespace: an image is mounted only once in the store (ctr
  // images mount unpacks a local image), where a pull puts it. \`images ls -q name==NAME\` prints NAME when
  // the store has it. The etcd image holds the etcd tools below (ETCD_IMAGE_TOOLS).
  ctr: `[ "$1 $2" = "-n k8s.io" ] || exit 1
present() { grep -sxF "$1" "$STANDIN_STATE/pulled"; }
case "$3 $4" in
"images pull") echo "$5" >>"$STANDIN_STATE/pulled";;
"images ls") [ "$5" = -q ] && [ "\${6%%==*}" = name ] || exit 1; present "\${6#name==}" || true;;
"images mount") present "$5" >/dev/null || { echo "ctr: image $5: not found" >&2; exit 1; }
  case "$5" in registry.k8s.io/etcd:*) mkdir -p "$6/usr/local/bin"
    cp "$STANDIN_STATE"/etcd-image/etcd* "$6/usr/local/bin/";; esac
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
  // Enabling the control plane's units can fail (STANDIN_UNIT_ENABLE_FAILURES times), as a unit systemd has
  // not loaded does; a unit user data did not install always fails.
  systemctl: `${COUNT}
if [ "$1 $2" = "enable --now" ]; then
  if [ "$(count enable)" -lt "\${STANDIN_UNIT_ENABLE_FAILURES:-0}" ]; then echo "Failed to enable unit: Unit file $3 does not exist." >&2; exit 1; fi
  for u in "\${@:3}"; do [ -f "$STANDIN_ROOT/etc/systemd/system/$u" ] || { echo "Failed to enable unit: Unit file $u does not exist." >&2; exit 1; }; done
fi`,
  // Reads the key it is given, as the real gpg does.
  gpg: "cat >/dev/null",
  // Applies the sysctl.d files to the scratch /proc, as sysctl --system does to the real one.
  sysctl: `[ "$1" = --system ] || exit 1
cat "$STANDIN_ROOT"/etc/sysctl.d/*.conf 2>/dev/null | while IFS='= ' read -r key value; do
  case "$key" in ''|'#'*) continue;; esac
  mkdir -p "$STANDIN_ROOT/proc/sys/$(dirname "\${key//.//}")"; echo "$value" >"$STANDIN_ROOT/proc/sys/\${key//.//}"
done`,
  hostname: `echo ${NODE_HOSTNAME}`,
  // kubectl with the node's admin kubeconfig (kubeadm's, once the node has joined), asked about this node's
  // Node and pods: the termination handler has drained it once STANDIN_DRAINED_AFTER looks at the Node
  // have gone by (cordoned, a DaemonSet's pod left); before, it is schedulable and runs a ReplicaSet's pod.
  // Asked for the cluster's kubeadm-config, it answers a ClusterConfiguration whose release is the node's own
  // unless STANDIN_CLUSTER_VERSION says otherwise, or kubeadm's upload-config has moved it (kubeadm.ts).
  // kubeadm init's ClusterRoleBinding that approves a bootstrap token's requests for any node name exists
  // until deleted (STANDIN_STATE/autoapprove-bootstrap-deleted), as kubectl delete --ignore-not-found says.
  // Anything else it is asked fails.
  kubectl: `${COUNT}
[ "$1" = --kubeconfig ] && [ -f "$2" ] || { echo "error: stat $2: no such file or directory" >&2; exit 1; }
shift 2
[ "\${1%%=*}" = --request-timeout ] && shift
case "$*" in
"get node $STANDIN_NODE_NAME --ignore-not-found -o json")
  if [ "$(count node)" -ge "\${STANDIN_DRAINED_AFTER:-0}" ]; then touch "$STANDIN_STATE/drained"; echo '{"spec":{"unschedulable":true}}'
  else echo '{"spec":{}}'; fi;;
"get pods --all-namespaces --field-selector spec.nodeName=$STANDIN_NODE_NAME -o json")
  if [ -e "$STANDIN_STATE/drained" ]; then echo '{"items":[{"metadata":{"name":"cilium-x","ownerReferences":[{"kind":"DaemonSet"}]}}]}'
  else echo '{"items":[{"metadata":{"name":"coredns-x","ownerReferences":[{"kind":"ReplicaSet"}]}}]}'; fi;;
"-n kube-system get configmap kubeadm-config"*)
  version=$(cat "$STANDIN_STATE/cluster-version" 2>/dev/null || echo "\${STANDIN_CLUSTER_VERSION:-$KUBEADM_VERSION}")
  printf 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v%s\n' "$version";;
"delete clusterrolebinding kubeadm:node-autoapprove-bootstrap --ignore-not-found")
  if mkdir "$STANDIN_STATE/autoapprove-bootstrap-deleted" 2>/dev/null; then
    echo 'clusterrolebinding.rbac.authorization.k8s.io "kubeadm:node-autoapprove-bootstrap" deleted'
  fi;;
*) echo "kubectl stand-in: not a call the bootstrap makes: $*" >&2; exit 1;;
esac`,
};
const NOOP = ["apt-mark"];

/** etcdctl and etcdutl in the etcd image (registry.k8s.io/etcd: /usr/local/bin), not on the node's PATH. */
const ETCD_IMAGE_TOOLS: Record<string, string> = {
  // etcd as the cluster's members answer: STANDIN_ETCD_MEMBERS ("HEX_ID=PEER_URL ..."), in etcdctl's JSON
  // (member IDs as hex strings with --hex); no answer at all with STANDIN_ETCD_DOWN=1. A removal is kept in
  // the state directory, so the next list no longer has the member; with STANDIN_ETCD_REMOVALS_LOST=1 a
  // removal is answered but never takes effect.
  etcdctl: `[ "\${STANDIN_ETCD_DOWN:-0}" = 1 ] && { echo "Error: context deadline exceeded" >&2; exit 1; }
removed=$(cat "$STANDIN_STATE/etcd-removed" 2>/dev/null | tr '\\n' ' ')
case "$*" in
*"member list -w json --hex"*)
  rows=(); for m in \${STANDIN_ETCD_MEMBERS:-} $(cat "$STANDIN_STATE/etcd-added" 2>/dev/null); do
    [[ " $removed " == *" \${m%%=*} "* ]] || rows+=("{\\"ID\\":\\"\${m%%=*}\\",\\"peerURLs\\":[\\"\${m#*=}\\"]}"); done
  (IFS=,; echo "{\\"header\\":{},\\"members\\":[\${rows[*]}]}");;
*"member remove "*) [ "\${STANDIN_ETCD_REMOVALS_LOST:-0}" = 1 ] || echo "\${@: -1}" >>"$STANDIN_STATE/etcd-removed";;
*"endpoint status -w json"*) echo "[{\\"Endpoint\\":\\"https://127.0.0.1:2379\\",\\"Status\\":{\\"header\\":{\\"member_id\\":10276657743932975437},\\"leader\\":\${STANDIN_ETCD_LEADER:-10276657743932975437}}}]";;
*"snapshot save "*) echo snapshot >"\${@: -1}";;
*) exit 1;;
esac`,
  // etcdutl's restore refuses a data directory that exists (etcdutl/snapshot: "data-dir ... exists"); each
  // restore's arguments are kept in the state directory.
  etcdutl: `case "$*" in
"snapshot status "*) ;;
"snapshot restore "*)
  [ -s "$3" ] || { echo "Error: open $3: no such file or directory" >&2; exit 1; }
  data=""; for ((i = 4; i <= $#; i++)); do [ "\${!i}" = --data-dir ] && { j=$((i + 1)); data=\${!j}; }; done
  [ -n "$data" ] && [ ! -e "$data" ] || { echo "Error: data-dir $data exists" >&2; exit 1; }
  mkdir -p "$data/member/snap" && echo "\${*:4}" >>"$STANDIN_STATE/etcd-restored";;
*) exit 1;;
esac`,
};

export interface Node {
  dir: string;
  root: string;
  state: string;
  env: NodeJS.ProcessEnv;
  /** The account the node runs in, and its own instance there. */
  aws: AwsFake;
  instance: Instance;
  userData: string;
  /** Every stand-in call, one line each: `name args...`. */
  log: () => string;
  file: (path: string) => string;
  exists: (path: string) => boolean;
  /** The configurations kubeadm was given, in order. */
  kubeadmConfigs: () => string[];
  /** What /etc/hosts said at each of those runs, in the same order. */
  kubeadmHosts: () => string[];
  /** Every file below the root with its content, to compare two moments. */
  snapshot: () => Record<string, string>;
}

export interface Options {
  aws: AwsFake;
  /** The user data the instance launches with: its header names its group, role and cluster. */
  userData: string;
  /** The cluster's keys (makeSecrets): the CA that signs a worker's credential among them. */
  secrets: string;
  /**
   * Whether the node that created the cluster has stored its keys (the default); false for the node that
   * creates it.
   */
  clusterKeysStored?: boolean;
  zone: string;
  /** Extra environment: STANDIN_* knobs, API_WAIT_TRIES. */
  env?: Record<string, string>;
  /** Files on the node before it boots (a member's data on its volume), by path below the root. */
  files?: Record<string, string>;
}

/** A value of the user data's header (`NAME='value'`). */
export const headerValue = (userData: string, name: string) =>
  new RegExp(`^\\s*${name}='([^']*)'$`, "m").exec(userData)![1];

/**
 * The cluster's keys as the node that created the cluster stores them (bootstrap/control-plane.sh,
 * share_control_plane_pki): a SecureString per file below SHARED_PKI_PARAMETERS (a control-plane node's header
 * names it), by its path below kubeadm's pki directory, then the CA's certificate, a String, in
 * CLUSTER_CA_PARAMETER. No join token: none exists.
 */
export function storeClusterKeys(aws: AwsFake, userData: string, secrets: string): void {
  const value = (name: string) => readFileSync(join(secrets, name), "utf8").replace(/\n$/, "");
  // Only a control-plane node's header names it.
  const prefix = new RegExp(`^\\s*SHARED_PKI_PARAMETERS='([^']*)'$`, "m").exec(userData)?.[1];
  const key = secretsKeyAlias(headerValue(userData, "CLUSTER_NAME"));
  if (prefix)
    for (const name of readdirSync(secrets))
      aws.putParameter(`${prefix}${KUBEADM_PKI_PATH[name]}`, value(name), "SecureString", key);
  aws.putParameter(headerValue(userData, "CLUSTER_CA_PARAMETER"), value("ca.crt"), "String");
}

/** Where the control plane puts a worker instance's credential (bootstrap/node-credentials.sh). */
export const credentialParameter = (clusterName: string, instanceId: string) =>
  `${instanceCredentialPrefix(clusterName)}${instanceId}`;

const credentials = new Map<string, string>();

/**
 * The credential the control plane issues a worker for its node name (bootstrap/node-credentials.sh,
 * node_certificate): the client certificate of `kubeadm kubeconfig user --client-name system:node:NAME --org
 * system:nodes` (cmd/kubeadm/app/cmd/kubeconfig.go), which the cluster CA signed, then its key, PEM. Made
 * with openssl, once per test process for each.
 */
export function nodeCredential(secrets: string, name: string): string {
  const id = `${secrets} ${name}`;
  const made = credentials.get(id);
  if (made) return made;
  const signed = signClientCertificate(secrets, `/O=system:nodes/CN=system:node:${name}`);
  const credential = signed.cert + signed.key;
  credentials.set(id, credential);
  return credential;
}

export function newNode(options: Options): Node {
  const { aws, userData } = options;
  const header = (name: string) => headerValue(userData, name);
  const cluster = header("CLUSTER_NAME");
  const role = header("ROLE") as "control-plane" | "node";
  if (options.clusterKeysStored ?? true) storeClusterKeys(aws, userData, options.secrets);
  const instance = aws.launch(
    {
      ...NODE_INSTANCE,
      zone: options.zone,
      tags: { [CLUSTER_TAG]: cluster, [ROLE_TAGS[role]]: "1" },
    },
    // The group's name as NodeLaunchTemplate names it, with the hooks the program declares on it.
    { name: `${header("INSTANCE_GROUP")}.${cluster}`, hooks: groupLifecycleHooks({ role }) },
  );
  // A worker's credential for its node name, EC2's private DNS name of its instance, issued by the control
  // plane (bootstrap/node-credentials.sh).
  if (role === "node") {
    // Written as put_secure_parameter writes what node_certificate printed: the command substitution's value,
    // without its last newline.
    const credential = nodeCredential(options.secrets, privateDnsName(instance)).replace(/\n$/, "");
    aws.putParameter(credentialParameter(cluster, instance.id), credential, "SecureString", secretsKeyAlias(cluster));
  }
  const dir = mkdtempSync(join(tmpdir(), "node-"));
  const root = join(dir, "root");
  const bin = join(dir, "bin");
  const state = join(dir, "state");
  for (const d of [root, bin, state]) mkdirSync(d);
  mkdirSync(join(root, "sys/class/net/ens5"), { recursive: true });
  writeFileSync(join(root, "sys/class/net/ens5/address"), `${instance.mac}\n`);
  for (const [path, text] of Object.entries(options.files ?? {})) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  // The kernel's uptime: an instance that booted a minute ago.
  mkdirSync(join(root, "proc"), { recursive: true });
  writeFileSync(join(root, "proc/uptime"), "60.00 110.00\n");
  for (const b of BASE_IMAGE) {
    mkdirSync(join(root, b, ".."), { recursive: true });
    writeFileSync(join(root, b), "");
  }
  const log = join(state, "calls");
  const stub = (path: string, name: string, body: string) => {
    writeFileSync(path, `#!/bin/bash\necho "${name} $*" >> "$STUB_LOG"\n${KILL}\n${body}\n`);
    chmodSync(path, 0o755);
  };
  const kubeadm = `NODE_PATH="${PROJECT}/node_modules" exec node "${compiledStandIn(join(__dirname, "kubeadm.ts"))}" "$@"`;
  for (const [name, body] of [...Object.entries(STUBS), ["kubeadm", kubeadm], ...NOOP.map((n) => [n, ""])])
    stub(join(bin, name), name, body);
  // The AWS CLI is a snap: it reaches PATH only when the packages step installs it.
  stub(join(state, "aws-cli"), "aws", aws.cliScript(instance.id));
  mkdirSync(join(state, "etcd-image"));
  for (const [name, body] of Object.entries(ETCD_IMAGE_TOOLS)) stub(join(state, "etcd-image", name), name, body);
  // Until then `aws` is a command bash does not find (an AWS CLI of the machine running the tests is no node's).
  writeFileSync(join(bin, "aws"), `#!/bin/bash\necho "aws: command not found" >&2\nexit 127\n`);
  chmodSync(join(bin, "aws"), 0o755);
  const env = {
    PATH: `${join(root, SNAP_BIN)}:${bin}:${process.env.PATH}`,
    IMDS_ENDPOINT: aws.imdsUrl(instance.id),
    BOOTSTRAP_ROOT: root,
    BOOTSTRAP_RETRY_DELAY: "0",
    API_WAIT_INTERVAL: "0",
    API_WAIT_TRIES: "20",
    NODE_CREDENTIALS_INTERVAL: "0",
    STUB_LOG: log,
    STANDIN_ROOT: root,
    STANDIN_STATE: state,
    // This node's etcd peer URL, as kubeadm gives it (its address): kubeadm's stand-in adds it on join.
    STANDIN_OWN_PEER: `https://${instance.privateIp}:2380`,
    // The Node the node is registered as: EC2's private DNS name of the instance.
    STANDIN_NODE_NAME: privateDnsName(instance),
    KUBEADM_VERSION: header("KUBERNETES_VERSION"),
    ...options.env,
  };
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
  return {
    dir,
    root,
    state,
    env,
    aws,
    instance,
    userData,
    log: () => (existsSync(log) ? readFileSync(log, "utf8") : ""),
    file: (path) => readFileSync(join(root, path), "utf8"),
    exists: (path) => existsSync(join(root, path)),
    kubeadmConfigs: () => kubeadmRuns(state, "yaml"),
    kubeadmHosts: () => kubeadmRuns(state, "hosts"),
    snapshot: () => Object.fromEntries(walk(root).map((f) => [relative(root, f), readFileSync(f, "utf8")])),
  };
}

/** The kubeadm stand-in's copies of one kind (`yaml`, `hosts`), in the order of its runs. */
const kubeadmRuns = (state: string, kind: string) =>
  readdirSync(state)
    .filter((f) => new RegExp(`^kubeadm-\\d+-\\w+\\.${kind}$`).test(f))
    .sort((a, b) => Number(a.split("-")[1]) - Number(b.split("-")[1]))
    .map((f) => readFileSync(join(state, f), "utf8"));

export interface Exit {
  status: number | null;
  stderr: string;
}

/** Runs a program asynchronously: the AWS fake and its metadata service live in this process and must keep answering. */
export function run(program: string, args: string[], env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { env, stdio: ["ignore", "ignore", "pipe"], detached: true });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

/**
 * Runs SCRIPT on the node as cloud-init runs user data, ENV added; stopped (its whole process group) after
 * STOP_AFTER_MS if given, which then gives status null.
 */
export function runScript(
  node: Node,
  script: string,
  env: NodeJS.ProcessEnv = {},
  stopAfterMs?: number,
): Promise<Exit> {
  const file = join(node.dir, "script");
  writeFileSync(file, script);
  return new Promise((resolve) => {
    const child = spawn("bash", [file], {
      env: { ...node.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const stop =
      stopAfterMs === undefined ? undefined : setTimeout(() => process.kill(-child.pid!, "SIGKILL"), stopAfterMs);
    child.on("close", (status) => {
      if (stop) clearTimeout(stop);
      resolve({ status, stderr });
    });
  });
}

/** Runs the node's user data as cloud-init does: once, a script. */
export async function runUserData(node: Node): Promise<Exit> {
  const script = join(node.dir, "user-data");
  writeFileSync(script, node.userData);
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

/** The cluster's CAs and keys as SSM would hand them out (pki.ts), one file each. */
export function makeSecrets(): { dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "secrets-"));
  for (const [name, text] of Object.entries(clusterPki())) writeFileSync(join(dir, name), text);
  return { dir };
}
