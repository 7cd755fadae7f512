// The kubeadm stand-in's contract on its own: each rule of kubeadm's preflight and config loading it
// enforces, shown failing and passing, so the bootstrap tests that rely on it cannot pass by accident.
import { expect } from "chai";
import { execFileSync } from "child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { stringify } from "yaml";
import { Command, parseConfig, preflight } from "../standins/kubeadmContract";
import { clusterPki, KUBEADM_PKI_PATH } from "../standins/pki";
import { requireDebianTool } from "../debianTools";

const BASE = ["/usr/bin/mount", "/usr/bin/nsenter", "/usr/bin/ip", "/usr/sbin/iptables"];
const HASH = `sha256:${"ab".repeat(32)}`;

function node(files: string[], version = "1.33.5") {
  const root = mkdtempSync(join(tmpdir(), "kubeadm-"));
  for (const f of files) {
    mkdirSync(join(root, f, ".."), { recursive: true });
    writeFileSync(join(root, f), f.endsWith("ip_forward") ? "1\n" : "x");
  }
  return { root, version };
}

/**
 * The node with the cluster's shared keys where kubeadm reads them; `swap` puts another file's text (or, not
 * naming a file, the text given) in a file's place.
 */
function withPki(n: ReturnType<typeof node>, swap: Record<string, string> = {}) {
  const pki = clusterPki();
  for (const [name, path] of Object.entries(KUBEADM_PKI_PATH)) {
    mkdirSync(join(n.root, "etc/kubernetes/pki", path, ".."), { recursive: true });
    writeFileSync(join(n.root, "etc/kubernetes/pki", path), pki[swap[name] ?? name] ?? swap[name]);
  }
  return n;
}

const workerJoin = (api = "v1beta4", extra: Record<string, unknown> = {}) =>
  stringify({
    apiVersion: `kubeadm.k8s.io/${api}`,
    kind: "JoinConfiguration",
    discovery: {
      bootstrapToken: { apiServerEndpoint: "api:443", token: "abcdef.0123456789abcdef", caCertHashes: [HASH] },
    },
    nodeRegistration: { criSocket: "unix:///run/containerd/containerd.sock", taints: [] },
    ...extra,
  });

/** What kubeadm COMMAND stops with: the configuration's errors, else preflight's (kubeadm.ts `run`). */
function errors(command: Command, text: string, n: ReturnType<typeof node>): string[] {
  const config = parseConfig(command, text, n);
  return config.errors.length > 0 ? config.errors : preflight(command, config, n);
}

/** A kubeconfig as `kubeadm kubeconfig user` prints it, its parts replaceable; `user: undefined` leaves the user out. */
const kubeconfig = (change: Record<string, unknown> = {}) =>
  stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "kubernetes", cluster: { server: "https://api:443", "certificate-authority-data": "Q0E=" } }],
    contexts: [{ name: "system:node:n@kubernetes", context: { cluster: "kubernetes", user: "system:node:n" } }],
    "current-context": "system:node:n@kubernetes",
    users: [{ name: "system:node:n", user: { "client-certificate-data": "Q0VSVA==", "client-key-data": "S0VZ" } }],
    ...change,
  });

/** The node with FILE holding TEXT (below its root). */
function withFile(n: ReturnType<typeof node>, file: string, text: string) {
  mkdirSync(join(n.root, file, ".."), { recursive: true });
  writeFileSync(join(n.root, file), text);
  return n;
}

const CREDENTIAL = "/etc/kubernetes/join-credential.conf";
/** A join that discovers the cluster from a file: the product's, with `discovery` replaceable. */
const fileJoin = (discovery: Record<string, unknown> = { file: { kubeConfigPath: CREDENTIAL } }, extra = {}) =>
  stringify({
    apiVersion: "kubeadm.k8s.io/v1beta4",
    kind: "JoinConfiguration",
    discovery,
    nodeRegistration: { criSocket: "unix:///run/containerd/containerd.sock", taints: [] },
    ...extra,
  });

describe("kubeadm stand-in: kubeadm's contract", () => {
  it("a worker join passes on a clean node and fails once the CA, kubelet.conf or bootstrap-kubelet.conf exist", () => {
    expect(errors("join", workerJoin(), node(BASE))).to.deep.equal([]);
    expect(errors("join", workerJoin(), node([...BASE, "/etc/kubernetes/pki/ca.crt"]))).to.deep.equal([
      "[ERROR FileAvailable--etc-kubernetes-pki-ca.crt]: /etc/kubernetes/pki/ca.crt already exists",
    ]);
    for (const f of ["kubelet.conf", "bootstrap-kubelet.conf"])
      expect(errors("join", workerJoin(), node([...BASE, `/etc/kubernetes/${f}`]))[0]).to.contain(
        `FileAvailable--etc-kubernetes-${f}`,
      );
  });

  it("requires ip, iptables, mount, nsenter, crictl before kubeadm 1.31 and conntrack before 1.32", () => {
    expect(errors("join", workerJoin(), node(BASE.slice(1)))).to.deep.equal([
      "[ERROR FileExisting-mount]: mount not found in system path",
    ]);
    expect(errors("join", workerJoin(), node(BASE, "1.31.9"))).to.deep.equal([
      "[ERROR FileExisting-conntrack]: conntrack not found in system path",
    ]);
    expect(errors("join", workerJoin(), node([...BASE, "/usr/sbin/conntrack"], "1.31.9"))).to.deep.equal([]);
    // kubeadm 1.30 still talked to the runtime through crictl.
    const withConntrack = [...BASE, "/usr/sbin/conntrack"];
    expect(errors("join", workerJoin("v1beta3"), node(withConntrack, "1.30.4"))).to.deep.equal([
      "[ERROR FileExisting-crictl]: crictl not found in system path",
    ]);
    expect(errors("join", workerJoin("v1beta3"), node([...withConntrack, "/usr/bin/crictl"], "1.30.4"))).to.deep.equal(
      [],
    );
  });

  it("a control-plane join needs an empty /var/lib/etcd, no manifests, and the shared CAs on disk", function () {
    requireDebianTool(this, "openssl", "openssl");
    const cp = workerJoin("v1beta4", { controlPlane: {} });
    expect(errors("join", cp, withPki(node(BASE)))).to.deep.equal([]);
    expect(errors("join", cp, node(BASE))[0]).to.contain("[ERROR CertificatesExist]");
    expect(errors("join", cp, withPki(node([...BASE, "/var/lib/etcd/member/snap/db"])))).to.deep.equal([
      "[ERROR DirAvailable--var-lib-etcd]: /var/lib/etcd is not empty",
    ]);
    expect(errors("join", cp, withPki(node([...BASE, "/etc/kubernetes/manifests/etcd.yaml"])))).to.deep.equal([
      "[ERROR FileAvailable--etc-kubernetes-manifests-etcd.yaml]: /etc/kubernetes/manifests/etcd.yaml already exists",
    ]);
  });

  it("a control-plane join and init load the shared keys: text that is no PEM, a swapped file, a leaf certificate fail", function () {
    this.timeout(30000);
    requireDebianTool(this, "openssl", "openssl");
    const cp = workerJoin("v1beta4", { controlPlane: {} });
    const init = stringify({
      apiVersion: "kubeadm.k8s.io/v1beta4",
      kind: "InitConfiguration",
      bootstrapTokens: [{ token: "abcdef.0123456789abcdef" }],
    });
    const forward = [...BASE, "/proc/sys/net/ipv4/ip_forward"];
    expect(errors("init", init, withPki(node(forward)))).to.deep.equal([]);
    const cases: [Record<string, string>, string][] = [
      [{ "sa.key": "fake sa.key\n" }, "failure loading key for service account"],
      [{ "ca.key": "front-proxy-ca.key" }, "the key of the CA does not match its certificate"],
      [{ "etcd-ca.crt": "ca.crt" }, "the key of the etcd CA does not match its certificate"],
      [{ "front-proxy-ca.crt": "sa.pub" }, "failure loading certificate for front-proxy CA"],
      [{ "sa.pub": "sa.key" }, "failure loading key for service account"],
      [{ "sa.key": "ca.key" }, "the service account's sa.pub is not sa.key's public key"],
    ];
    for (const [swap, message] of cases) {
      const n = withPki(node(BASE), swap);
      const joined = errors("join", cp, n);
      expect(joined, JSON.stringify(swap)).to.have.length(1);
      expect(joined[0], JSON.stringify(swap)).to.contain(message);
      expect(errors("init", init, withPki(node(forward), swap))[0], JSON.stringify(swap)).to.contain(message);
    }
    // A certificate that is not a CA's: a leaf the cluster CA signed.
    const n = withPki(node(BASE));
    const pki = join(n.root, "etc/kubernetes/pki");
    execFileSync(
      "openssl",
      [
        "req",
        "-new",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=leaf",
        "-keyout",
        join(n.root, "leaf.key"),
        "-out",
        join(n.root, "leaf.csr"),
      ],
      { stdio: "ignore" },
    );
    execFileSync(
      "openssl",
      [
        "x509",
        "-req",
        "-in",
        join(n.root, "leaf.csr"),
        "-CA",
        join(pki, "ca.crt"),
        "-CAkey",
        join(pki, "ca.key"),
        "-days",
        "1",
        "-out",
        join(pki, "front-proxy-ca.crt"),
      ],
      { stdio: "ignore" },
    );
    expect(errors("join", cp, n)).to.deep.equal(["[ERROR CertificatesExist]: certificate front-proxy CA is not a CA"]);
  });

  it("init needs IPv4 forwarding on", () => {
    const init = stringify({
      apiVersion: "kubeadm.k8s.io/v1beta4",
      kind: "InitConfiguration",
      bootstrapTokens: [{ token: "abcdef.0123456789abcdef" }],
    });
    expect(errors("init", init, node([...BASE, "/proc/sys/net/ipv4/ip_forward"]))).to.deep.equal([]);
    expect(errors("init", init, node(BASE))).to.deep.equal([
      "[ERROR FileContent--proc-sys-net-ipv4-ip_forward]: /proc/sys/net/ipv4/ip_forward contents are not set to 1",
    ]);
  });

  it("reads only the fields of the API version used, and checks tokens and CA hashes", () => {
    const n = node(BASE);
    const args = [{ name: "node-ip", value: "10.0.0.1" }];
    const withArgs = (api: string, kubeletExtraArgs: unknown) =>
      workerJoin(api, {
        nodeRegistration: { criSocket: "unix:///run/containerd/containerd.sock", taints: [], kubeletExtraArgs },
      });
    expect(errors("join", withArgs("v1beta4", args), n)).to.deep.equal([]);
    expect(errors("join", withArgs("v1beta3", { "node-ip": "10.0.0.1" }), n)).to.deep.equal([]);
    expect(errors("join", withArgs("v1beta4", { "node-ip": "10.0.0.1" }), n)).to.deep.equal([
      "JoinConfiguration.nodeRegistration.kubeletExtraArgs: expected a list",
    ]);
    expect(errors("join", withArgs("v1beta3", args), n)).to.deep.equal([
      "JoinConfiguration.nodeRegistration.kubeletExtraArgs: expected a map",
    ]);
    expect(errors("join", workerJoin("v1beta4", { nodeRegistrations: {} }), n)).to.deep.equal([
      'JoinConfiguration: unknown field "nodeRegistrations"',
    ]);
    expect(errors("join", workerJoin("v1beta4"), node(BASE, "1.30.4"))[0]).to.contain('no kind "JoinConfiguration"');
    expect(errors("join", workerJoin().replace("abcdef.0123456789abcdef", "not-a-token"), n)[0]).to.contain(
      "invalid token",
    );
    expect(errors("join", workerJoin().replace(HASH, "sha256:0123"), n)[0]).to.contain("invalid hash");
    expect(
      errors("join", stringify({ apiVersion: "kubeadm.k8s.io/v1beta4", kind: "InitConfiguration" }), n),
    ).to.include("no JoinConfiguration kind was found");
  });

  it("discovery: exactly one of bootstrapToken and file; a file's path an https URL or a file on the node", () => {
    const n = withFile(node(BASE), CREDENTIAL, kubeconfig());
    expect(errors("join", fileJoin(), n)).to.deep.equal([]);
    const token = { apiServerEndpoint: "api:443", token: "abcdef.0123456789abcdef", caCertHashes: [HASH] };
    expect(errors("join", fileJoin({}), n)).to.deep.equal([
      'discovery: Invalid value: "": bootstrapToken or file must be set',
    ]);
    expect(errors("join", fileJoin({ bootstrapToken: token, file: { kubeConfigPath: CREDENTIAL } }), n)).to.deep.equal([
      'discovery: Invalid value: "": bootstrapToken and file cannot both be set',
    ]);
    // Checked when the configuration is loaded (os.Stat), before any preflight check.
    const missing = "/etc/kubernetes/other.conf";
    expect(errors("join", fileJoin({ file: { kubeConfigPath: missing } }), n)).to.deep.equal([
      `discovery.file.kubeConfigPath: Invalid value: "${missing}": not a valid HTTPS URL or a file on disk`,
    ]);
    expect(errors("join", fileJoin({ file: { kubeConfigPath: "http://api/credential" } }), n)).to.deep.equal([
      'discovery.file.kubeConfigPath: Invalid value: "http://api/credential": if a URL is used, the scheme must be https',
    ]);
    // A relative path is from kubeadm's working directory, a service's: the root. A file:// URL is its path.
    expect(errors("join", fileJoin({ file: { kubeConfigPath: CREDENTIAL.slice(1) } }), n)).to.deep.equal([]);
    expect(errors("join", fileJoin({ file: { kubeConfigPath: `file://${CREDENTIAL}` } }), n)).to.deep.equal([]);
    expect(errors("join", fileJoin({ file: { kubeConfigPath: CREDENTIAL, path: "x" } }), n)).to.deep.equal([
      'JoinConfiguration.discovery.file: unknown field "path"',
    ]);
  });

  it("discovery from a file needs a kubeconfig that loads and holds credentials, unless a tlsBootstrapToken is given", () => {
    const discovered = (text: string, discovery?: Record<string, unknown>) =>
      errors("join", fileJoin(discovery), withFile(node(BASE), CREDENTIAL, text));
    const identity = "couldn't validate the identity of the API Server: ";
    const noCredentials =
      "couldn't find authentication credentials for the TLS bootstrap process. Please use Token discovery, a " +
      "discovery file with embedded authentication credentials or a discovery file without authentication " +
      "credentials but with the TLSBootstrapToken flag";
    // The cluster's address and CA alone, as cluster-info's kubeconfig (one unnamed cluster): no credential.
    const unnamed = { name: "", cluster: { server: "https://api:443", "certificate-authority-data": "Q0E=" } };
    const clusterOnly = kubeconfig({ clusters: [unnamed], contexts: [], "current-context": "", users: [] });
    expect(discovered(clusterOnly)).to.deep.equal([noCredentials]);
    expect(
      discovered(clusterOnly, { file: { kubeConfigPath: CREDENTIAL }, tlsBootstrapToken: "abcdef.0123456789abcdef" }),
    ).to.deep.equal([]);
    expect(
      discovered(kubeconfig({ users: [{ name: "system:node:n", user: { "client-certificate-data": "Q0VSVA==" } }] })),
    ).to.deep.equal([
      `${identity}invalid configuration: [client-key-data or client-key must be specified for system:node:n to use the clientCert authentication method.]`,
    ]);
    expect(discovered(kubeconfig({ users: [{ name: "system:node:n", user: { token: "t" } }] }))).to.deep.equal([]);
    expect(discovered(kubeconfig({ clusters: [] }))).to.deep.equal([
      `${identity}the provided kubeconfig file must have at least one Cluster defined`,
    ]);
    expect(discovered(kubeconfig({ "current-context": "other" }))).to.deep.equal([
      `${identity}the provided kubeconfig file is malformed: the current context is invalid: other`,
    ]);
    expect(
      discovered(kubeconfig({ clusters: [{ name: "kubernetes", cluster: { "certificate-authority-data": "Q0E=" } }] })),
    ).to.deep.equal([`${identity}invalid configuration: [no server found for cluster "kubernetes"]`]);
    const caFile = { name: "kubernetes", cluster: { server: "https://api:443", "certificate-authority": "/ca.crt" } };
    expect(discovered(kubeconfig({ clusters: [caFile] }))).to.deep.equal([
      `${identity}error while reading certificate authority file defined in kubeconfig: /ca.crt`,
    ]);
    expect(discovered(": [")[0]).to.match(
      /^couldn't validate the identity of the API Server: error loading config file/,
    );
    // After the node's own checks, which stop kubeadm first; a control-plane join's follow it.
    const joined = withFile(node([...BASE, "/etc/kubernetes/kubelet.conf"]), CREDENTIAL, clusterOnly);
    expect(errors("join", fileJoin(), joined)).to.deep.equal([
      "[ERROR FileAvailable--etc-kubernetes-kubelet.conf]: /etc/kubernetes/kubelet.conf already exists",
    ]);
    const controlPlane = withFile(node([...BASE, "/var/lib/etcd/member/snap/db"]), CREDENTIAL, clusterOnly);
    expect(errors("join", fileJoin(undefined, { controlPlane: {} }), controlPlane)).to.deep.equal([noCredentials]);
  });
});
