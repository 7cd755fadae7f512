/**
 * `kubeadm` for the bootstrap tests: refuses what real kubeadm refuses (kubeadmContract.ts), and otherwise
 * leaves on the node the files real kubeadm leaves, so that running it twice fails as it would. Run as
 * `kubeadm init|join --config FILE [--ignore-preflight-errors=CHECK,...]` (init makes the CAs and the
 * service-account key pair it does not find: pki.ts's), `kubeadm reset --force`,
 * `kubeadm reset phase remove-etcd-member`, `kubeadm init phase certs etcd-healthcheck-client`,
 * `kubeadm config images list --kubernetes-version vX.Y.Z`, `kubeadm token create|list|delete` (the cluster's
 * bootstrap tokens, kept in STANDIN_STATE/tokens), `kubeadm kubeconfig user` and `kubeadm init phase
 * upload-config kubeadm` (the cluster's release, kept in STANDIN_STATE/cluster-version, and its
 * ClusterConfiguration, in STANDIN_STATE/kubeadm-config.yaml).
 *
 * Environment: STANDIN_ROOT (the node's `/`), STANDIN_STATE (counters and copies of each configuration),
 * KUBEADM_VERSION, STANDIN_API_READY_AFTER (the API answers once /readyz has been asked that many times;
 * the curl stand-in counts), STANDIN_KUBEADM_FAILURES (the first N inits or joins stop half-way, as a
 * timed-out TLS bootstrap does, leaving their files behind).
 */
import { randomBytes } from "crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { dirname, join } from "path";
import { stringify } from "yaml";
import { Command, etcdDataDir, parseConfig, preflight } from "./kubeadmContract";
import { clusterPki, KUBEADM_PKI_PATH, signClientCertificate } from "./pki";

const root = process.env.STANDIN_ROOT ?? "";
const state = process.env.STANDIN_STATE ?? "";
const version = process.env.KUBEADM_VERSION ?? "";

function counter(name: string, increment: boolean): number {
  const file = join(state, name);
  const n = existsSync(file) ? Number(readFileSync(file, "utf8")) : 0;
  if (increment) writeFileSync(file, String(n + 1));
  return n;
}

function write(path: string, text = "stand-in\n"): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/**
 * The etcd image kubeadm runs for a Kubernetes release: `SupportedEtcdVersion` of
 * cmd/kubeadm/app/constants/constants.go (release 1.35: 1.33 → 3.5.24-0, 1.34 and 1.35 → 3.6.6-0); a release
 * outside the map gets the nearest entry, as `EtcdSupportedVersion` does.
 */
function etcdImage(kubernetes: string): string {
  const minor = Number(kubernetes.replace(/^v/, "").split(".")[1]);
  return `registry.k8s.io/etcd:${minor >= 34 ? "3.6.6-0" : "3.5.24-0"}`;
}

/** `kubeadm config images list --kubernetes-version V`: the images of that release, one a line. */
function imagesList(args: string[]): void {
  const at = args.indexOf("--kubernetes-version");
  if (at < 0 || !/^v\d+\.\d+\.\d+$/.test(args[at + 1] ?? "")) fail("the stand-in needs --kubernetes-version vX.Y.Z");
  const v = args[at + 1];
  const images = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy"].map(
    (c) => `registry.k8s.io/${c}:${v}`,
  );
  process.stdout.write(
    [...images, "registry.k8s.io/coredns/coredns:v1.12.1", "registry.k8s.io/pause:3.10", etcdImage(v)].join("\n") +
      "\n",
  );
}

function fail(message: string): never {
  process.stderr.write(message.endsWith("\n") ? message : `${message}\n`);
  process.exit(1);
}

/**
 * `--ignore-preflight-errors`: checks named there (case-insensitive; `all` for every one) are reported as
 * warnings, not errors (cmd/kubeadm/app/preflight/checks.go `RunChecks`).
 */
function ignoredChecks(args: string[]): (error: string) => boolean {
  const list = args
    .filter((a) => a.startsWith("--ignore-preflight-errors="))
    .flatMap((a) => a.slice("--ignore-preflight-errors=".length).toLowerCase().split(","));
  return (error) => list.includes("all") || list.includes(/^\[ERROR ([^\]]+)\]/.exec(error)?.[1].toLowerCase() ?? "");
}

function run(command: Command, configPath: string, ignored: (error: string) => boolean): void {
  if (!configPath || !existsSync(configPath)) fail(`unable to read config from "${configPath}"`);
  const text = readFileSync(configPath, "utf8");
  const n = counter("kubeadm-runs", true);
  writeFileSync(join(state, `kubeadm-${n}-${command}.yaml`), text);
  // What the node's /etc/hosts said when kubeadm ran: where its phases reach controlPlaneEndpoint.
  const hosts = join(root, "/etc/hosts");
  writeFileSync(join(state, `kubeadm-${n}-${command}.hosts`), existsSync(hosts) ? readFileSync(hosts, "utf8") : "");
  const node = { root, version };
  const config = parseConfig(command, text, node);
  if (config.errors.length > 0)
    fail(`error: invalid configuration for kubeadm ${command}:\n\t${config.errors.join("\n\t")}`);
  const errors = preflight(command, config, node).filter((e) => !ignored(e));
  if (errors.length > 0) {
    fail(
      `[preflight] Some fatal errors occurred:\n${errors.map((e) => `\t${e}\n`).join("")}` +
        "[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`",
    );
  }
  const controlPlane = command === "init" || config.documents.JoinConfiguration?.controlPlane !== undefined;
  // init's certs phase (phases/init/certs.go): the CAs and the service-account key pair it finds are used, the
  // ones it does not are made.
  if (command === "init") {
    const made = clusterPki();
    for (const [name, path] of Object.entries(KUBEADM_PKI_PATH))
      if (!existsSync(join(root, "/etc/kubernetes/pki", path))) write(`/etc/kubernetes/pki/${path}`, made[name]);
  }
  // check-etcd (phases/join/checketcd.go): every started voter answers Status. A member at this node's own
  // peer URL whose data is gone (a reset wiped it) is a voter that never answers.
  const ownPeer = process.env.STANDIN_OWN_PEER ?? "";
  if (
    command === "join" &&
    controlPlaneJoin(config) &&
    members().includes(ownPeer) &&
    !existsSync(join(root, "/var/lib/etcd/member"))
  )
    fail(
      `error execution phase check-etcd: etcd cluster is not healthy: failed to dial endpoint ${ownPeer.replace(":2380", ":2379")}`,
    );
  if (command === "join") {
    const after = Number(process.env.STANDIN_API_READY_AFTER ?? "0");
    if (counter("readyz", false) < after)
      fail("error: couldn't validate the identity of the API Server: connection refused");
  }
  // Writes in the order of kubeadm's phases (cmd/kubeadm/app/cmd/phases): the CA (a worker's from
  // discovery); the control plane's manifests (init also etcd's); the TLS bootstrap kubeconfig, then
  // kubelet.conf once the kubelet has its certificate (kubelet-start). A join adds the etcd member and its
  // manifest only after that (control-plane-join); etcd writes its data once the kubelet runs its pod.
  if (!existsSync(join(root, "/etc/kubernetes/pki/ca.crt"))) write("/etc/kubernetes/pki/ca.crt", "discovered CA\n");
  const manifests = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"];
  if (command === "init") manifests.push("etcd");
  const etcdManifest = `apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: etcd\n    image: ${etcdImage(version)}\n`;
  if (controlPlane)
    for (const m of manifests) write(`/etc/kubernetes/manifests/${m}.yaml`, m === "etcd" ? etcdManifest : undefined);
  write("/etc/kubernetes/bootstrap-kubelet.conf");
  if (counter("kubeadm-failures", false) < Number(process.env.STANDIN_KUBEADM_FAILURES ?? "0")) {
    counter("kubeadm-failures", true);
    fail("error execution phase kubelet-start: timed out waiting for the condition");
  }
  rmSync(join(root, "/etc/kubernetes/bootstrap-kubelet.conf"));
  write("/etc/kubernetes/kubelet.conf");
  write("/var/lib/kubelet/config.yaml");
  // init's bootstrap-token phase: the InitConfiguration's tokens, or the one kubeadm's defaults add (24 h).
  if (command === "init") {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const given = ((config.documents.InitConfiguration as any)?.bootstrapTokens ?? []) as { token?: string }[];
    for (const t of given.length > 0 ? given : [{}]) addToken(t.token ?? newToken(), 24);
  }
  if (controlPlane) {
    write("/etc/kubernetes/admin.conf");
    // control-plane-join: the member added (a learner, promoted) and its pod's manifest.
    if (command === "join") {
      if (!members().includes(ownPeer)) appendFileSync(join(state, "etcd-added"), `self=${ownPeer}\n`);
      write("/etc/kubernetes/manifests/etcd.yaml", etcdManifest);
    }
    const dataDir = etcdDataDir(config);
    if (!existsSync(join(root, dataDir, "member"))) write(`${dataDir}/member/snap/db`);
    // Stopped before the kubelet registered the Node (kubelet-wait-bootstrap): kubeadm reset then cannot read
    // this node's configuration from the cluster and leaves its member (cmd/reset.go).
    if (
      command === "join" &&
      counter("member-failures", false) < Number(process.env.STANDIN_KUBEADM_FAILURES_AFTER_MEMBER ?? "0")
    ) {
      counter("member-failures", true);
      fail("error execution phase kubelet-wait-bootstrap: timed out waiting for the condition");
    }
  }
}

/** Whether a JoinConfiguration joins the control plane. */
const controlPlaneJoin = (config: ReturnType<typeof parseConfig>) =>
  config.documents.JoinConfiguration?.controlPlane !== undefined;

/** The etcd members' peer URLs, as the etcdctl stand-in lists them (node.ts): given, added, not removed. */
function members(): string[] {
  const read = (f: string) =>
    existsSync(join(state, f)) ? readFileSync(join(state, f), "utf8").split(/\s+/).filter(Boolean) : [];
  const removed = read("etcd-removed");
  return [...(process.env.STANDIN_ETCD_MEMBERS ?? "").split(" ").filter(Boolean), ...read("etcd-added")]
    .filter((m) => !removed.includes(m.split("=")[0]))
    .map((m) => m.slice(m.indexOf("=") + 1));
}

/**
 * kubeadm reset --force: removes what init and join leave (phases/reset/cleanupnode.go), etcd's data too.
 * Its member stays: the stand-in models the reset of a node kubeadm cannot read the configuration of.
 */
function reset(): void {
  for (const dir of ["/etc/kubernetes/manifests", "/etc/kubernetes/pki", "/var/lib/kubelet", "/var/lib/etcd"])
    rmSync(join(root, dir), { recursive: true, force: true });
  for (const f of [
    "admin.conf",
    "super-admin.conf",
    "kubelet.conf",
    "bootstrap-kubelet.conf",
    "controller-manager.conf",
    "scheduler.conf",
  ])
    rmSync(join(root, "/etc/kubernetes", f), { force: true });
}

/** The cluster's bootstrap tokens, "TOKEN EXPIRES" a line (STANDIN_STATE/tokens). */
const TOKENS = () => join(state, "tokens");
const tokenLines = () => (existsSync(TOKENS()) ? readFileSync(TOKENS(), "utf8").split("\n").filter(Boolean) : []);
const saveTokens = (lines: string[]) => writeFileSync(TOKENS(), lines.map((l) => `${l}\n`).join(""));

/** A token of kubeadm's form (bootstraputil.GenerateBootstrapToken). */
function newToken(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const random = (n: number) => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join("");
  return `${random(6)}.${random(16)}`;
}

function addToken(token: string, hours: number): void {
  const expires = new Date(Date.now() + hours * 3600_000).toISOString().replace(/\.\d+Z$/, "Z");
  saveTokens([...tokenLines(), `${token} ${expires}`]);
}

/**
 * `kubeadm token` through `--kubeconfig` (an admin kubeconfig the node has): `create --ttl <h>h` prints a new
 * token of kubeadm's form, `list -o jsonpath=...` prints each with the template's `{.token}`, `{.expires}`,
 * `{" "}` and `{"\n"}`, `delete TOKEN` (or its id) removes it or fails as kubeadm does for an unknown one.
 */
function token(args: string[]): void {
  const kubeconfig = args[args.indexOf("--kubeconfig") + 1];
  if (!args.includes("--kubeconfig") || !existsSync(kubeconfig))
    fail(`failed to load admin kubeconfig: open ${kubeconfig}: no such file or directory`);
  const tokens = tokenLines();
  const id = (t: string) => t.split(" ")[0].split(".")[0];
  const template = args.find((a) => a.startsWith("jsonpath="))?.slice("jsonpath=".length);
  if (args[0] === "create") {
    const ttl = /^(\d+)h$/.exec(args[args.indexOf("--ttl") + 1] ?? "");
    if (!ttl) fail("the stand-in needs --ttl <hours>h");
    const created = newToken();
    addToken(created, Number(ttl[1]));
    process.stdout.write(`${created}\n`);
  } else if (args[0] === "list" && template && /^(\{(\.token|\.expires|" "|"\\n")\})+$/.test(template)) {
    const fields: Record<string, (t: string) => string> = {
      "{.token}": (t) => t.split(" ")[0],
      "{.expires}": (t) => t.split(" ")[1],
      '{" "}': () => " ",
      '{"\\n"}': () => "\n",
    };
    const parts = template.match(/\{[^}]*\}/g)!;
    process.stdout.write(tokens.map((t) => parts.map((p) => fields[p](t)).join("")).join(""));
  } else if (args[0] === "delete" && args[1]) {
    if (!tokens.some((t) => id(t) === id(args[1]))) fail(`bootstrap token "${id(args[1])}" not found`);
    saveTokens(tokens.filter((t) => id(t) !== id(args[1])));
  } else fail(`the stand-in does not cover kubeadm token ${args.join(" ")}`);
}

/** A flag's value, or a failure naming it as kubeadm's flag parsing would. */
function flag(args: string[], name: string): string {
  const value = args[args.indexOf(name) + 1];
  if (!args.includes(name) || !value) fail(`the stand-in needs ${name}`);
  return value;
}

/**
 * `kubeadm kubeconfig user --config FILE --client-name NAME --org GROUP --validity-period D`: a kubeconfig for
 * NAME, signed with the CA key the node holds (cmd/kubeconfig.go: the certificate directory's ca.key), whose
 * server is the configuration's controlPlaneEndpoint: the cluster (its clusterName, `kubernetes` by default)
 * with the CA's certificate, a context `NAME@CLUSTER`, current, and the user NAME with its client
 * certificate (CN NAME, O GROUP, valid D, rounded up to whole days) and key embedded, as kubeadm prints it.
 */
function kubeconfigUser(args: string[]): void {
  const config = parseConfig("init", readFileSync(flag(args, "--config"), "utf8"), { root, version }, false);
  if (config.errors.length > 0) fail(`invalid configuration: ${config.errors.join("; ")}`);
  if (!existsSync(join(root, "/etc/kubernetes/pki/ca.key")))
    fail(
      "couldn't create a kubeconfig; the CA files couldn't be loaded: open /etc/kubernetes/pki/ca.key: no such file",
    );
  for (const f of ["--client-name", "--org", "--validity-period"]) flag(args, f);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const cluster = config.documents.ClusterConfiguration as any;
  const name = flag(args, "--client-name");
  const minutes = /^(\d+)([hm])$/.exec(flag(args, "--validity-period"));
  if (!minutes) fail("the stand-in needs --validity-period <N>h or <N>m");
  const days = String(Math.max(1, Math.ceil((Number(minutes[1]) * (minutes[2] === "h" ? 60 : 1)) / 1440)));
  const ca = join(root, "/etc/kubernetes/pki");
  const signed = signClientCertificate(ca, `/O=${flag(args, "--org")}/CN=${name}`, Number(days));
  const base64 = (path: string) => readFileSync(path).toString("base64");
  const base64Of = (pem: string) => Buffer.from(pem).toString("base64");
  const clusterName = cluster?.clusterName ?? "kubernetes";
  process.stdout.write(
    stringify({
      apiVersion: "v1",
      clusters: [
        {
          cluster: {
            "certificate-authority-data": base64(join(ca, "ca.crt")),
            server: `https://${cluster?.controlPlaneEndpoint}`,
          },
          name: clusterName,
        },
      ],
      contexts: [{ context: { cluster: clusterName, user: name }, name: `${name}@${clusterName}` }],
      "current-context": `${name}@${clusterName}`,
      kind: "Config",
      users: [
        {
          name,
          user: { "client-certificate-data": base64Of(signed.cert), "client-key-data": base64Of(signed.key) },
        },
      ],
    }),
  );
}

/**
 * `kubeadm init phase upload-config kubeadm --config FILE --kubeconfig ADMIN`: the ClusterConfiguration's
 * release goes to the cluster's kubeadm-config (STANDIN_STATE/cluster-version, which kubectl's stand-in reads).
 */
function uploadConfig(args: string[]): void {
  const config = parseConfig("init", readFileSync(flag(args, "--config"), "utf8"), { root, version }, false);
  if (config.errors.length > 0) fail(`invalid configuration: ${config.errors.join("; ")}`);
  if (!existsSync(flag(args, "--kubeconfig"))) fail(`failed to load admin kubeconfig: ${flag(args, "--kubeconfig")}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const release = String((config.documents.ClusterConfiguration as any).kubernetesVersion).replace(/^v/, "");
  writeFileSync(join(state, "cluster-version"), `${release}\n`);
  writeFileSync(join(state, "kubeadm-config.yaml"), stringify(config.documents.ClusterConfiguration));
}

const [command, ...args] = process.argv.slice(2);
appendFileSync(join(state, "kubeadm-calls"), `${[command, ...args].join(" ")}\n`);
// The remove-etcd-member phase of kubeadm reset, as the etcd-leave service runs it: through admin.conf.
if (`${command} ${args.slice(0, 2).join(" ")}` === "reset phase remove-etcd-member") {
  const kubeconfig = args[args.indexOf("--kubeconfig") + 1];
  if (!kubeconfig || !existsSync(kubeconfig)) fail(`failed to load admin kubeconfig: open ${kubeconfig}: no such file`);
}
// The certs phase's health-check client certificate, signed by the etcd CA in --cert-dir.
else if (`${command} ${args.slice(0, 3).join(" ")}` === "init phase certs etcd-healthcheck-client") {
  const dir = args[args.indexOf("--cert-dir") + 1];
  if (!existsSync(join(dir, "etcd/ca.key"))) fail(`couldn't load the etcd CA: open ${dir}/etcd/ca.key: no such file`);
  for (const f of ["healthcheck-client.crt", "healthcheck-client.key"]) writeFileSync(join(dir, "etcd", f), `${f}\n`);
} else if (`${command} ${args.slice(0, 3).join(" ")}` === "init phase upload-config kubeadm") uploadConfig(args);
else if (command === "init" || command === "join")
  run(command, args[args.indexOf("--config") + 1] ?? "", ignoredChecks(args));
else if (command === "reset" && args.includes("--force")) reset();
else if (command === "config" && args[0] === "images" && args[1] === "list") imagesList(args);
else if (command === "token") token(args);
else if (command === "kubeconfig" && args[0] === "user") kubeconfigUser(args);
else fail(`the stand-in does not cover kubeadm ${command} ${args.join(" ")}`);
