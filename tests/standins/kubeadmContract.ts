/**
 * What real kubeadm requires of a node before `init` and `join`, for the cases the bootstrap tests cover,
 * written from kubeadm's source:
 *
 * - preflight (cmd/kubeadm/app/preflight/checks.go, checks_linux.go): `JoinNodeChecks` (kubelet.conf and
 *   bootstrap-kubelet.conf must not exist; on a worker join, the CA at `caCertPath` must not exist either),
 *   `InitNodeChecks` (for init, and as `isSecondaryControlPlane` for a control-plane join: the static-pod
 *   manifests must not exist, `/var/lib/etcd` must be empty; for init with an IPv4 service subnet,
 *   /proc/sys/net/ipv4/ip_forward must be 1) and `addExecChecks` (ip, iptables, mount, nsenter in PATH,
 *   crictl before kubeadm 1.31, which talks to the container runtime through the CRI API instead, and
 *   conntrack before kubeadm 1.32, when kubernetes/kubernetes#126952 dropped it; ebtables, ethtool, socat, tc,
 *   touch only warn). Errors are reported as kubeadm does: `[ERROR <check name>]: <message>`.
 * - a control-plane join without `certificateKey` needs the shared CAs and service-account key on disk, and
 *   loads them (phases/join/preflight.go `checkIfReadyForAdditionalControlPlane` →
 *   phases/certs `SharedCertificateExists`): `validateCACertAndKey` for the cluster, front-proxy and etcd CAs
 *   (the certificate parses as PEM, is a CA, the key parses) and `validatePrivatePublicKey` for sa.key and
 *   sa.pub. `kubeadm init` loads the same files where they exist instead of creating its own (certs phase,
 *   `LoadCertificateAuthority`, `TryLoadPrivatePublicKeyFromDisk`). This stand-in also requires each key to
 *   match its certificate and sa.pub to be sa.key's public half: kubeadm loads them without comparing, and a
 *   mismatch gives a cluster whose certificates fail verification and whose service-account tokens are
 *   refused, which no test may pass with.
 * - the configuration file: the kinds each command reads, and the fields of each kind in the API version
 *   used (v1beta3, and v1beta4 from kubeadm 1.31), with kubeletExtraArgs a map in v1beta3 and a list of
 *   name/value pairs in v1beta4; token and CA-hash formats as kubeadm validates them. kubeadm only warns about
 *   an unknown field; this stand-in rejects it, because a field kubeadm ignores is a bug in the renderer.
 * - a join's discovery (apis/kubeadm/validation/validation.go `ValidateDiscovery`): exactly one of
 *   `bootstrapToken` and `file`; a file's `kubeConfigPath` is an https URL or a file that exists
 *   (`ValidateDiscoveryKubeConfigPath`). kubeadm join's preflight phase then discovers the cluster
 *   (cmd/join.go `InitCfg` → `TLSBootstrapCfg` → discovery/discovery.go `For`), right after the node checks:
 *   from a file, the kubeconfig must name a cluster and load (discovery/file/file.go `ValidateConfigInfo`,
 *   client-go's clientcmd `Validate`), and hold the credentials the TLS bootstrap uses, unless
 *   `tlsBootstrapToken` is set (`For`: "couldn't find authentication credentials ..."). Token discovery is
 *   taken as answered: the stand-in has no cluster to ask.
 *
 * Not covered (they need a real machine): the root check, CPU and memory, open ports, swap, the container
 * runtime's socket, the kubelet version; nor the cluster's side of discovery and the TLS bootstrap (the
 * cluster-info ConfigMap, whether the API server accepts the credential). Paths are below `root`, the test's
 * stand-in for `/`; a relative one is below it too, kubeadm's working directory being systemd's default for
 * a system service, `/`.
 */
import { createPrivateKey, createPublicKey, KeyObject, X509Certificate } from "crypto";
import { existsSync, readdirSync, readFileSync } from "fs";
import { join } from "path";
import { parseAllDocuments } from "yaml";

export type Command = "init" | "join";

export interface Node {
  /** The directory standing in for the node's `/`. */
  root: string;
  /** kubeadm's version, X.Y.Z. */
  version: string;
}

/** The etcd data directory kubeadm `command` uses on this node with this configuration. */
export function etcdDataDir(config: ParsedConfig): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const cluster = config.documents.ClusterConfiguration as any;
  return cluster?.etcd?.local?.dataDir ?? "/var/lib/etcd";
}

type Schema = "string" | "bool" | "int" | "any" | { [field: string]: Schema } | { map: Schema } | { list: Schema };

const arg: Schema = { name: "string", value: "string" };
const taint: Schema = { key: "string", value: "string", effect: "string", timeAdded: "string" };
const envVar: Schema = { name: "string", value: "string" };
const hostPathMount: Schema = {
  name: "string",
  hostPath: "string",
  mountPath: "string",
  readOnly: "bool",
  pathType: "string",
};

function schemas(api: "v1beta3" | "v1beta4"): Record<string, Record<string, Schema>> {
  const v4 = api === "v1beta4";
  const args: Schema = v4 ? { list: arg } : { map: "string" };
  const only4 = (fields: Record<string, Schema>) => (v4 ? fields : {});
  const only3 = (fields: Record<string, Schema>) => (v4 ? {} : fields);
  const nodeRegistration: Schema = {
    name: "string",
    criSocket: "string",
    taints: { list: taint },
    kubeletExtraArgs: args,
    ignorePreflightErrors: { list: "string" },
    imagePullPolicy: "string",
    ...only4({ imagePullSerial: "bool" }),
  };
  const component: Record<string, Schema> = {
    extraArgs: args,
    extraVolumes: { list: hostPathMount },
    ...only4({ extraEnvs: { list: envVar } }),
  };
  const apiEndpoint: Schema = { advertiseAddress: "string", bindPort: "int" };
  const timeouts: Schema = {
    controlPlaneComponentHealthCheck: "string",
    kubeletHealthCheck: "string",
    kubernetesAPICall: "string",
    etcdAPICall: "string",
    tlsBootstrap: "string",
    discovery: "string",
    upgradeManifests: "string",
  };
  const patches: Schema = { directory: "string" };
  const typeMeta: Record<string, Schema> = { apiVersion: "string", kind: "string" };
  return {
    InitConfiguration: {
      ...typeMeta,
      bootstrapTokens: {
        list: {
          token: "string",
          description: "string",
          ttl: "string",
          expires: "string",
          usages: { list: "string" },
          groups: { list: "string" },
        },
      },
      ...only4({ dryRun: "bool", timeouts }),
      nodeRegistration,
      localAPIEndpoint: apiEndpoint,
      certificateKey: "string",
      skipPhases: { list: "string" },
      patches,
    },
    ClusterConfiguration: {
      ...typeMeta,
      etcd: {
        local: {
          imageRepository: "string",
          imageTag: "string",
          dataDir: "string",
          extraArgs: args,
          ...only4({ extraEnvs: { list: envVar } }),
          serverCertSANs: { list: "string" },
          peerCertSANs: { list: "string" },
        },
        external: { endpoints: { list: "string" }, caFile: "string", certFile: "string", keyFile: "string" },
      },
      networking: { serviceSubnet: "string", podSubnet: "string", dnsDomain: "string" },
      kubernetesVersion: "string",
      controlPlaneEndpoint: "string",
      apiServer: { ...component, certSANs: { list: "string" }, ...only3({ timeoutForControlPlane: "string" }) },
      controllerManager: component,
      scheduler: component,
      dns: { imageRepository: "string", imageTag: "string", ...only4({ disabled: "bool" }) },
      ...only4({
        proxy: { disabled: "bool" },
        encryptionAlgorithm: "string",
        certificateValidityPeriod: "string",
        caCertificateValidityPeriod: "string",
      }),
      certificatesDir: "string",
      imageRepository: "string",
      featureGates: { map: "bool" },
      clusterName: "string",
    },
    JoinConfiguration: {
      ...typeMeta,
      ...only4({ dryRun: "bool", timeouts }),
      nodeRegistration,
      caCertPath: "string",
      discovery: {
        bootstrapToken: {
          token: "string",
          apiServerEndpoint: "string",
          caCertHashes: { list: "string" },
          unsafeSkipCAVerification: "bool",
        },
        file: { kubeConfigPath: "string" },
        tlsBootstrapToken: "string",
        ...only3({ timeout: "string" }),
      },
      controlPlane: { localAPIEndpoint: apiEndpoint, certificateKey: "string" },
      skipPhases: { list: "string" },
      patches,
    },
  };
}

/** The KubeletConfiguration fields the program sets, and others an operator would (kubelet.config.k8s.io/v1beta1). */
const KUBELET_CONFIGURATION: Record<string, Schema> = {
  apiVersion: "string",
  kind: "string",
  cgroupDriver: "string",
  maxPods: "int",
  shutdownGracePeriod: "string",
  shutdownGracePeriodCriticalPods: "string",
  clusterDNS: { list: "string" },
  clusterDomain: "string",
  providerID: "string",
  serverTLSBootstrap: "bool",
  rotateCertificates: "bool",
  evictionHard: { map: "string" },
  kubeReserved: { map: "string" },
  systemReserved: { map: "string" },
};

function checkValue(schema: Schema, value: unknown, path: string, errors: string[]): void {
  if (value === null || value === undefined) return;
  if (schema === "any") return;
  if (schema === "string" || schema === "bool" || schema === "int") {
    const ok =
      schema === "string"
        ? typeof value === "string"
        : schema === "bool"
          ? typeof value === "boolean"
          : Number.isInteger(value);
    if (!ok) errors.push(`${path}: expected ${schema}, got ${JSON.stringify(value)}`);
    return;
  }
  if ("list" in schema && Object.keys(schema).length === 1) {
    if (!Array.isArray(value)) return void errors.push(`${path}: expected a list`);
    value.forEach((v, i) => checkValue(schema.list as Schema, v, `${path}[${i}]`, errors));
    return;
  }
  if ("map" in schema && Object.keys(schema).length === 1) {
    if (typeof value !== "object" || Array.isArray(value)) return void errors.push(`${path}: expected a map`);
    for (const [k, v] of Object.entries(value as object)) checkValue(schema.map as Schema, v, `${path}.${k}`, errors);
    return;
  }
  if (typeof value !== "object" || Array.isArray(value)) return void errors.push(`${path}: expected an object`);
  const fields = schema as Record<string, Schema>;
  for (const [k, v] of Object.entries(value as object)) {
    if (!(k in fields)) errors.push(`${path}: unknown field "${k}"`);
    else checkValue(fields[k], v, path ? `${path}.${k}` : k, errors);
  }
}

const minor = (version: string) => Number(version.split(".")[1]);
const TOKEN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;
const CA_HASH = /^sha256:[a-f0-9]{64}$/;

export interface ParsedConfig {
  documents: Record<string, Record<string, unknown>>;
  errors: string[];
}

/**
 * The configuration file's documents by kind, and what kubeadm `command` would refuse in it. `kubeadm init`
 * needs its InitConfiguration here; its phases and `kubeconfig user` (WHOLE_INIT false) default one, as
 * configutil.LoadOrDefaultInitConfiguration does.
 */
export function parseConfig(command: Command, text: string, node: Node, wholeInit = true): ParsedConfig {
  const errors: string[] = [];
  const documents: Record<string, Record<string, unknown>> = {};
  const kinds =
    command === "init" ? ["InitConfiguration", "ClusterConfiguration", "KubeletConfiguration"] : ["JoinConfiguration"];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) errors.push(`invalid YAML: ${doc.errors[0].message}`);
    const object = doc.toJS() as Record<string, unknown> | null;
    if (!object) continue;
    const kind = String(object.kind);
    const apiVersion = String(object.apiVersion);
    if (kind === "KubeletConfiguration") {
      if (apiVersion !== "kubelet.config.k8s.io/v1beta1") errors.push(`KubeletConfiguration: apiVersion ${apiVersion}`);
      checkValue(KUBELET_CONFIGURATION, object, "KubeletConfiguration", errors);
    } else {
      const api = /^kubeadm\.k8s\.io\/(v1beta3|v1beta4)$/.exec(apiVersion)?.[1] as "v1beta3" | "v1beta4" | undefined;
      if (!api || (api === "v1beta4" && minor(node.version) < 31)) {
        errors.push(`no kind "${kind}" is registered for version "${apiVersion}" in kubeadm ${node.version}`);
        continue;
      }
      const schema = schemas(api)[kind];
      if (!schema) errors.push(`unknown kind ${kind}`);
      else checkValue(schema, object, kind, errors);
    }
    if (!kinds.includes(kind)) errors.push(`kubeadm ${command} does not read a ${kind}`);
    documents[kind] = object;
  }
  if (command === "join" && !documents.JoinConfiguration) errors.push("no JoinConfiguration kind was found");
  if (command === "init" && wholeInit && !documents.InitConfiguration)
    errors.push("no InitConfiguration kind was found");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const j = documents.JoinConfiguration as any;
  if (j) errors.push(...discoveryErrors(j.discovery ?? {}, node.root));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  for (const t of ((documents.InitConfiguration as any)?.bootstrapTokens ?? []) as { token?: string }[]) {
    if (!TOKEN.test(String(t.token))) errors.push(`bootstrapTokens.token: invalid token ${t.token}`);
  }
  return { documents, errors };
}

/** A path on the node, below root: an absolute one from `/`, a relative one from kubeadm's working directory, `/`. */
const onNode = (root: string, path: string) => join(root, path);

/** Go's url.Parse: the scheme before the first `:`, when what comes before it is one (net/url `getScheme`). */
const urlScheme = (s: string) => /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s)?.[1] ?? "";

/** The JoinConfiguration's discovery as `ValidateDiscovery` (validation.go) judges it, after defaulting. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function discoveryErrors(discovery: any, root: string): string[] {
  const errors: string[] = [];
  const token = discovery.bootstrapToken;
  let file = discovery.file;
  if (!token && !file) errors.push('discovery: Invalid value: "": bootstrapToken or file must be set');
  if (token && file) errors.push('discovery: Invalid value: "": bootstrapToken and file cannot both be set');
  if (token) {
    if (!TOKEN.test(String(token.token))) errors.push(`discovery.bootstrapToken.token: invalid token ${token.token}`);
    if (!/^[^:]+:\d+$/.test(String(token.apiServerEndpoint)))
      errors.push("discovery.bootstrapToken.apiServerEndpoint: host:port");
    for (const h of token.caCertHashes ?? []) if (!CA_HASH.test(h)) errors.push(`caCertHashes: invalid hash ${h}`);
    if ((token.caCertHashes ?? []).length === 0 && !token.unsafeSkipCAVerification)
      errors.push("discovery.bootstrapToken: using token-based discovery without caCertHashes can be unsafe");
  }
  if (file) {
    // SetDefaults_FileDiscovery (v1beta4/defaults.go): a file:// URL becomes its path.
    const path = String(file.kubeConfigPath ?? "");
    if (urlScheme(path) === "file") file = { kubeConfigPath: path.replace(/^file:\/\/[^/]*/, "") };
    errors.push(...kubeConfigPathErrors(String(file.kubeConfigPath ?? ""), root));
  }
  // SetDefaults_Discovery copies the token to tlsBootstrapToken; one given is checked as a token.
  if (discovery.tlsBootstrapToken && !TOKEN.test(String(discovery.tlsBootstrapToken)))
    errors.push(`discovery.tlsBootstrapToken: invalid token ${discovery.tlsBootstrapToken}`);
  return errors;
}

/**
 * ValidateDiscoveryKubeConfigPath (validation.go): no scheme is a file, which must exist (os.Stat; a
 * relative path from kubeadm's working directory); with a scheme, only https.
 */
function kubeConfigPathErrors(path: string, root: string): string[] {
  const field = `discovery.file.kubeConfigPath: Invalid value: ${JSON.stringify(path)}`;
  const scheme = urlScheme(path);
  if (scheme === "") return existsSync(onNode(root, path)) ? [] : [`${field}: not a valid HTTPS URL or a file on disk`];
  return scheme === "https" ? [] : [`${field}: if a URL is used, the scheme must be https`];
}

/** A kubeconfig (clientcmd's v1 Config), its named lists as maps. */
interface Kubeconfig {
  currentContext: string;
  clusters: Map<string, Record<string, unknown>>;
  contexts: Map<string, Record<string, unknown>>;
  users: Map<string, Record<string, unknown>>;
}

function loadKubeconfig(text: string): Kubeconfig {
  const doc = parseAllDocuments(text)[0];
  if (!doc || doc.errors.length > 0)
    throw new Error(`error loading config file: ${doc?.errors[0]?.message ?? "empty"}`);
  const object = (doc.toJS() ?? {}) as Record<string, unknown>;
  const named = (list: unknown, field: string) =>
    new Map(
      ((Array.isArray(list) ? list : []) as Record<string, unknown>[]).map((e) => [
        String(e.name ?? ""),
        (e[field] ?? {}) as Record<string, unknown>,
      ]),
    );
  return {
    currentContext: String(object["current-context"] ?? ""),
    clusters: named(object.clusters, "cluster"),
    contexts: named(object.contexts, "context"),
    users: named(object.users, "user"),
  };
}

/** The current context's user (kubeconfig.go `getCurrentAuthInfo`), if the kubeconfig names one that exists. */
const currentUser = (config: Kubeconfig) => {
  const context = config.contexts.get(config.currentContext);
  return config.currentContext && context?.user ? config.users.get(String(context.user)) : undefined;
};

/** kubeconfig.go `HasAuthenticationCredentials`: a token, a user and password, a client certificate and key, or an exec plugin. */
function hasCredentials(config: Kubeconfig): boolean {
  const u = currentUser(config);
  if (!u) return false;
  const has = (k: string) => typeof u[k] === "string" && (u[k] as string).length > 0;
  return (
    has("token") ||
    has("tokenFile") ||
    (has("username") && has("password")) ||
    ((has("client-certificate") || has("client-certificate-data")) && (has("client-key") || has("client-key-data"))) ||
    ((u.exec as { command?: string } | undefined)?.command ?? "").length > 0
  );
}

/**
 * kubeadm join's discovery (discovery.go `For`), as its preflight phase runs it: what it fails with, or
 * nothing. From a file: loaded, at least one cluster, the current context's cluster, clientcmd's
 * `Validate`, the CA and the credentials' files read into it (`EnsureCertificateAuthorityIsEmbedded`,
 * `EnsureAuthenticationInfoAreEmbedded`); then credentials, or a tlsBootstrapToken to use instead.
 */
export function discover(config: ParsedConfig, node: Node): string[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const discovery = (config.documents.JoinConfiguration as any)?.discovery ?? {};
  if (!discovery.file) return [];
  const path = String(discovery.file.kubeConfigPath).replace(/^file:\/\/[^/]*/, "");
  if (urlScheme(path) === "https") return [`the stand-in does not cover discovery from ${path}`];
  const identity = (message: string) => [`couldn't validate the identity of the API Server: ${message}`];
  let kubeconfig: Kubeconfig;
  try {
    kubeconfig = loadKubeconfig(readFileSync(onNode(node.root, path), "utf8"));
  } catch (e) {
    return identity((e as Error).message);
  }
  if (kubeconfig.clusters.size < 1)
    return identity("the provided kubeconfig file must have at least one Cluster defined");
  // kubeconfig.go GetClusterFromKubeConfig: the unnamed cluster, or the current context's.
  const context = kubeconfig.contexts.get(kubeconfig.currentContext);
  const clusterName = kubeconfig.clusters.has("") ? "" : String(context?.cluster ?? "");
  const cluster = kubeconfig.clusters.get(clusterName);
  if (!cluster)
    return identity(
      context
        ? `the provided kubeconfig file is malformed: no matching cluster for the current context: ${kubeconfig.currentContext}`
        : `the provided kubeconfig file is malformed: the current context is invalid: ${kubeconfig.currentContext}`,
    );
  // clientcmd Validate (client-go tools/clientcmd/validation.go), the rules a kubeconfig of ours can break.
  const invalid: string[] = [];
  if (kubeconfig.currentContext && !context)
    invalid.push(`context was not found for specified context: ${kubeconfig.currentContext}`);
  for (const [name, c] of kubeconfig.contexts) {
    if (!c.user) invalid.push(`user was not specified for context "${name}"`);
    else if (!kubeconfig.users.has(String(c.user)))
      invalid.push(`user "${c.user}" was not found for context "${name}"`);
    if (!c.cluster) invalid.push(`cluster was not specified for context "${name}"`);
    else if (!kubeconfig.clusters.has(String(c.cluster)))
      invalid.push(`cluster "${c.cluster}" was not found for context "${name}"`);
  }
  for (const [name, c] of kubeconfig.clusters) if (!c.server) invalid.push(`no server found for cluster "${name}"`);
  for (const [name, u] of kubeconfig.users)
    if ((u["client-certificate"] || u["client-certificate-data"]) && !u["client-key"] && !u["client-key-data"])
      invalid.push(
        `client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`,
      );
  if (invalid.length > 0) return identity(`invalid configuration: [${invalid.join(", ")}]`);
  // Files a kubeconfig names are read into it, from the node.
  const unreadable = (value: unknown) =>
    typeof value === "string" && value !== "" && !existsSync(onNode(node.root, value));
  if (unreadable(cluster["certificate-authority"]))
    return identity(
      `error while reading certificate authority file defined in kubeconfig: ${cluster["certificate-authority"]}`,
    );
  if (hasCredentials(kubeconfig)) {
    const user = currentUser(kubeconfig)!;
    for (const [key, what] of [
      ["client-certificate", "client cert"],
      ["client-key", "client key"],
      ["tokenFile", "token"],
    ])
      if (unreadable(user[key]))
        return identity(`error while reading ${what} file defined in kubeconfig: ${user[key]}`);
    return [];
  }
  if (discovery.tlsBootstrapToken) return [];
  return [
    "couldn't find authentication credentials for the TLS bootstrap process. Please use Token discovery, a " +
      "discovery file with embedded authentication credentials or a discovery file without authentication " +
      "credentials but with the TLSBootstrapToken flag",
  ];
}

const fileAvailable = (root: string, path: string, errors: string[]) => {
  if (existsSync(join(root, path)))
    errors.push(`[ERROR FileAvailable-${path.replace(/\//g, "-")}]: ${path} already exists`);
};
const dirAvailable = (root: string, path: string, errors: string[]) => {
  const dir = join(root, path);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    errors.push(`[ERROR DirAvailable-${path.replace(/\//g, "-")}]: ${path} is not empty`);
};

const MANIFESTS = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"].map(
  (m) => `/etc/kubernetes/manifests/${m}.yaml`,
);
/** certs.SharedCertificateExists: what a control-plane join without certificateKey needs on disk. */
const SHARED_CAS: [string, string][] = [
  ["ca", "CA"],
  ["front-proxy-ca", "front-proxy CA"],
  ["etcd/ca", "etcd CA"],
];
export const SHARED_CERTIFICATES = [
  "ca.crt",
  "ca.key",
  "sa.key",
  "sa.pub",
  "front-proxy-ca.crt",
  "front-proxy-ca.key",
  "etcd/ca.crt",
  "etcd/ca.key",
].map((f) => `/etc/kubernetes/pki/${f}`);

/** Whether an executable of that name is on the node (below root's bin directories). */
function inPath(root: string, name: string): boolean {
  return ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"].some((d) =>
    existsSync(join(root, d, name)),
  );
}

/** The preflight errors kubeadm `command` reports on this node for this configuration. */
export function preflight(command: Command, config: ParsedConfig, node: Node): string[] {
  const { root } = node;
  const errors: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const join_ = config.documents.JoinConfiguration as any;
  const controlPlane = command === "init" || join_?.controlPlane !== undefined;
  if (command === "join") {
    fileAvailable(root, "/etc/kubernetes/kubelet.conf", errors);
    fileAvailable(root, "/etc/kubernetes/bootstrap-kubelet.conf", errors);
  }
  // addCommonChecks → addExecChecks: for join kubeadm passes no version, so conntrack is checked by the
  // kubeadm binary's own rule: always before 1.32, never after.
  // crictl until kubeadm 1.31 talked to the runtime through it (1.31 uses the CRI API itself).
  const mandatory = [
    ...(minor(node.version) < 31 ? ["crictl"] : []),
    "ip",
    "iptables",
    "mount",
    "nsenter",
    ...(minor(node.version) < 32 ? ["conntrack"] : []),
  ];
  for (const name of mandatory)
    if (!inPath(root, name)) errors.push(`[ERROR FileExisting-${name}]: ${name} not found in system path`);
  if (command === "join" && !controlPlane)
    fileAvailable(root, join_?.caCertPath ?? "/etc/kubernetes/pki/ca.crt", errors);
  // RunJoinNodeChecks failed: kubeadm stops there. Else it discovers the cluster (runPreflight → InitCfg),
  // and stops if that fails, before a control-plane join's own checks. (The caller filters the checks
  // --ignore-preflight-errors names after: a join that ignores one is not discovered here; none does.)
  if (command === "join") {
    if (errors.length > 0) return errors;
    const discovered = discover(config, node);
    if (discovered.length > 0) return discovered;
  }
  if (controlPlane) {
    for (const m of MANIFESTS) fileAvailable(root, m, errors);
    dirAvailable(root, etcdDataDir(config), errors);
  }
  if (command === "init") {
    const forward = join(root, "/proc/sys/net/ipv4/ip_forward");
    if (!existsSync(forward) || readFileSync(forward, "utf8")[0] !== "1")
      errors.push(
        "[ERROR FileContent--proc-sys-net-ipv4-ip_forward]: /proc/sys/net/ipv4/ip_forward contents are not set to 1",
      );
  }
  if (command === "join" && controlPlane && !join_.controlPlane?.certificateKey) {
    const missing = SHARED_CERTIFICATES.filter((c) => !existsSync(join(root, c)));
    if (missing.length > 0)
      errors.push(`[ERROR CertificatesExist]: a control-plane join without certificateKey needs ${missing.join(", ")}`);
    else errors.push(...sharedCertificateErrors(root, () => true));
  }
  // init uses what exists (a CA's certificate or key, the sa.key/sa.pub pair) and creates the rest.
  if (command === "init") errors.push(...sharedCertificateErrors(root, (base) => existsSync(join(root, PKI, base))));
  return errors;
}

const PKI = "/etc/kubernetes/pki";

/** PEM `text` as `parse` reads it, or the error message. */
function load<T>(path: string, parse: (pem: Buffer) => T): T | string {
  try {
    return parse(readFileSync(path));
  } catch (e) {
    return `${path.replace(/^.*\/etc\/kubernetes\/pki\//, "")}: ${(e as Error).message}`;
  }
}

const spki = (key: KeyObject) =>
  (key.type === "private" ? createPublicKey(key) : key).export({ type: "spki", format: "der" });

/**
 * SharedCertificateExists's checks of the shared keys whose files `present` says exist (by base name:
 * `ca.crt`, `sa.key`, ...), and that each key matches its certificate or public half.
 */
function sharedCertificateErrors(root: string, present: (base: string) => boolean): string[] {
  const errors: string[] = [];
  const fail = (message: string) => errors.push(`[ERROR CertificatesExist]: ${message}`);
  for (const [base, ux] of SHARED_CAS) {
    if (!present(`${base}.crt`) && !present(`${base}.key`)) continue;
    const cert = load(join(root, PKI, `${base}.crt`), (pem) => new X509Certificate(pem));
    if (typeof cert === "string") {
      fail(`failure loading certificate for ${ux}: ${cert}`);
      continue;
    }
    if (!cert.ca) {
      fail(`certificate ${ux} is not a CA`);
      continue;
    }
    const key = load(join(root, PKI, `${base}.key`), (pem) => createPrivateKey(pem));
    if (typeof key === "string") fail(`failure loading key for ${ux}: ${key}`);
    else if (!cert.checkPrivateKey(key)) fail(`the key of the ${ux} does not match its certificate`);
  }
  if (present("sa.key") || present("sa.pub")) {
    const key = load(join(root, PKI, "sa.key"), (pem) => createPrivateKey(pem));
    // keyutil.ParsePublicKeysPEM reads PUBLIC KEY blocks only: a private key is no public key.
    const pub = load(join(root, PKI, "sa.pub"), (pem) => {
      if (!/^-----BEGIN (RSA )?PUBLIC KEY-----$/m.test(pem.toString()))
        throw new Error("data does not contain any valid RSA or ECDSA public keys");
      return createPublicKey(pem);
    });
    if (typeof key === "string") fail(`failure loading key for service account: ${key}`);
    else if (typeof pub === "string") fail(`failure loading key for service account: ${pub}`);
    else if (!spki(key).equals(spki(pub))) fail("the service account's sa.pub is not sa.key's public key");
  }
  return errors;
}
