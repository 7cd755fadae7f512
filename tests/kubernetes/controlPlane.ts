/**
 * A real control plane built from the program's own kubeadm configuration, on a NodeHost: kubeadm's init
 * phases write the certificates, kubeconfigs and static pod manifests, and each manifest's container command
 * then runs as a process (the kubelet would run it as a container; this sandbox has no container runtime).
 * The API's name resolves as on a node, to the API load balancer: a model that sends a connection only to a
 * target in service (registered when its launch hook completes, ELB and Auto Scaling's documented order) and
 * never from a target to itself (every client here is the node). The node's bootstrap pins the name to its
 * own API server before kubeadm init (bootstrap/control-plane.sh), as it does on an instance.
 */
import { join } from "path";
import { parse } from "yaml";
import { modulePath } from "../../components/nodes/bootstrapModuleFiles";
import { BootstrapModule, modulesFor } from "../../components/nodes/bootstrapSteps";
import { factsHeader } from "../../components/nodes/shellHeader";
import { parameterPrefix, secretsKeyAlias } from "../../components/nodes/secretPaths";
import { layerBinary } from "../helm";
import { cliDirectory } from "../standins/aws";
import { AwsProcess, startAwsProcess } from "../standins/awsProcess";
import type { Binary } from "./binaries";
import { NodeHost } from "./nodeHost";
import { fillAsTheNode } from "./renderedKubeadm";
import { waitFor } from "../waitFor";

export const NODE_IP = "10.0.1.10";
export const NODE_NAME = "ip-10-0-1-10.ec2.internal";
/** The node's instance, whose role its `aws` calls with. */
const INSTANCE_ID = "i-0123456789abcdef0";
const KUBEADM_CONFIG = "/etc/kubernetes/kubeadm.yaml";
const MANIFESTS = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"] as const;

/** The API load balancer's address: a network namespace of its own behind the host, what the API's name resolves to. */
export const LOAD_BALANCER_IP = "10.0.2.1";

/**
 * Inside the host: the load balancer's namespace, joined to the host by a veth pair, then LOAD_BALANCER in it.
 * The namespace's first process only holds it until the load balancer is in it: then it goes, so the host's
 * end (which kills the load balancer) leaves nothing behind.
 */
const LOAD_BALANCER_NET = `set -e
ip link add lb0 type veth peer name lb1
unshare --net sleep infinity & holder=$!
sleep 0.5
ip link set lb1 netns "$holder"
ip addr add 10.0.2.2/24 dev lb0 && ip link set lb0 up
exec nsenter -t "$holder" -n env HOLDER="$holder" bash -c 'kill "$HOLDER"; ip link set lo up
ip addr add ${LOAD_BALANCER_IP}/24 dev lb1; ip link set lb1 up; ip route add default via 10.0.2.2; exec "$@"' lb "$@"`;

/**
 * The load balancer, run with Node inside the host: it forwards to a target listed in TARGETS (the
 * instances in service) other than the client's own instance (SELF: every client here is the node), and
 * drops the connection when there is none.
 */
const LOAD_BALANCER = `const net = require("net"), fs = require("fs");
const [listenHost, port, targets, self] = process.argv.slice(1);
net.createServer((c) => {
  const to = fs.readFileSync(targets, "utf8").split("\\n").filter((t) => t && t !== self)[0];
  if (!to) return c.destroy();
  const u = net.connect(+port, to); c.pipe(u).pipe(c); u.on("error", () => c.destroy()); c.on("error", () => u.destroy());
}).listen(+port, listenHost);`;

/** The bootstrap's own modules that pin and unpin the API's name (bootstrap/control-plane.sh). */
export const apiPin = (apiHost: string, fn: "pin_api_endpoint" | "unpin_api_endpoint") => [
  "bash",
  "-c",
  `set -euo pipefail; ${factsHeader()}source ${modulePath("lib")}; source ${modulePath("control-plane")}; API_ENDPOINT=${apiHost}; ${fn}`,
];

/** The `source` lines of MODULE, after `lib` and the modules it calls into, as the bootstrap script holds them. */
const sources = (module: BootstrapModule) =>
  modulesFor([{ name: module, module, run: "" }])
    .map((m) => `source ${modulePath(m)};`)
    .join(" ");

export interface ControlPlane {
  host: NodeHost;
  /** The AWS fake the node's `aws` calls, in a process of its own: the node's commands run synchronously. */
  aws: AwsProcess;
  /**
   * The credential of the node NAME as the bootstrap signs it on this control-plane node
   * (bootstrap/node-credentials.sh, mint_node_credential, with the real kubeadm): a kubeconfig.
   */
  mintCredential(name: string, env?: NodeJS.ProcessEnv): string;
  /** The Secrets encryption keys' parameter name (bootstrap/encryption.sh). */
  encryptionKeysParameter: string;
  /**
   * Runs FUNCTION ARGS of a bootstrap module on this node, as the bootstrap script does (its modules, the
   * real kubeadm, the AWS fake's CLI, the control plane's variables); returns its standard output.
   */
  bootstrap(module: "encryption" | "node-credentials", fn: string, ...args: string[]): string;
  /**
   * A joining control-plane node's fetch of the cluster's keys this node stored (bootstrap/control-plane.sh,
   * fetch_shared_pki), into ROOT/etc/kubernetes/pki on the host.
   */
  fetchSharedPki(root: string): void;
  /** Where this node stored the cluster CA's certificate, and its keys (share_control_plane_pki). */
  clusterCaParameter: string;
  sharedPkiParameters: string;
  /** kubectl inside the host with the admin kubeconfig; throws on failure. */
  kubectl(args: string[], input?: string): string;
  /** The same, returning the exit status and output instead of throwing. */
  tryKubectl(args: string[], input?: string): { status: number | null; out: string };
  kubectlPath: string;
  /** The API's name (controlPlaneEndpoint's host). */
  apiHost: string;
  /** The load balancer's registered targets, one address a line: the instances in service. */
  targetsFile: string;
  /** Ends the host and the AWS fake. */
  stop(): Promise<void>;
}

/** Each static pod manifest's container command, its binary replaced by the one built from source. */
function manifestCommands(host: NodeHost, binaries: Record<Binary, string>): [string, string[]][] {
  return MANIFESTS.map((name) => {
    const pod = parse(host.must(["cat", `/etc/kubernetes/manifests/${name}.yaml`]));
    const [command, ...args] = pod.spec.containers[0].command as string[];
    const binary = binaries[command as Binary];
    if (!binary) throw new Error(`${name}.yaml runs ${command}, which is not built`);
    return [name, [binary, ...args]];
  });
}

/**
 * Runs `kubeadm init`'s phases with the rendered InitConfiguration: certs, kubeconfig, etcd local and
 * control-plane; starts what the manifests say; then the phases that need only the API (upload-config,
 * bootstrap-token, mark-control-plane once `registerNode` has made the Node, addon).
 */
export async function startControlPlane(
  initConfiguration: string,
  binaries: Record<Binary, string>,
  registerNode: (cp: ControlPlane) => void,
  /** The files the group's user data installs besides the bootstrap's own: the API server's configuration. */
  userDataFiles: Record<string, string>,
): Promise<ControlPlane> {
  const config = initConfiguration.split("\n---\n").map((d) => parse(d));
  const cluster = config.find((d) => d.kind === "ClusterConfiguration");
  const init = config.find((d) => d.kind === "InitConfiguration");
  const endpoint = cluster.controlPlaneEndpoint as string;
  const [apiHost, apiPort] = endpoint.split(":");
  const aws = await startAwsProcess();
  const host = NodeHost.create({
    ip: NODE_IP,
    // Ubuntu's short name, as on EC2: kubeadm must take the node's name from its configuration (the
    // bootstrap fills it from the instance's metadata), not from the host.
    hostname: NODE_NAME.split(".")[0],
    hosts: [`${LOAD_BALANCER_IP} ${apiHost}`, `${NODE_IP} ${NODE_NAME}`],
  });
  const stop = async () => {
    host.stop();
    await aws.close();
  };
  try {
    const filled = fillAsTheNode(initConfiguration, { nodeIp: NODE_IP });
    host.writeFile(KUBEADM_CONFIG, filled, "0600");
    // The bootstrap's configure_kubelet makes the patches directory the configuration names (bootstrap/kubelet.sh).
    host.must(["mkdir", "-p", "/etc/kubernetes/patches"]);

    const kubectlPath = layerBinary("kubectl");
    const kubeadm = (args: string[]) => host.must([binaries.kubeadm, ...args, "--config", KUBEADM_CONFIG]);
    const tryKubectl = (args: string[], input?: string) => {
      const r = host.run([kubectlPath, "--kubeconfig", "/etc/kubernetes/admin.conf", ...args], { input });
      return { status: r.status, out: `${r.stdout}${r.stderr}` };
    };
    const kubectl = (args: string[], input?: string) => {
      const r = tryKubectl(args, input);
      if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.out}`);
      return r.out;
    };
    const targetsFile = join(host.root, "load-balancer-targets");
    host.writeFile(targetsFile, "", "0644");
    // The node's AWS CLI, under the shared /tmp: the host reaches it, as it reaches the fake's socket.
    const bin = cliDirectory(aws.cliScript(INSTANCE_ID));
    const controlPlanePrefix = parameterPrefix(cluster.clusterName, "control-plane");
    const encryptionKeysParameter = `${controlPlanePrefix}encryption-keys-test`;
    const initRecordParameter = `${controlPlanePrefix}initialized-test`;
    const sharedPkiParameters = `${controlPlanePrefix}pki-test/`;
    const clusterCaParameter = `${parameterPrefix(cluster.clusterName, "node")}cluster-ca-test`;
    const bootstrap = (module: BootstrapModule, fn: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
      host.must(
        [
          "bash",
          "-c",
          `set -euo pipefail; ${factsHeader()}${sources(module)}
kubeadm() { "${binaries.kubeadm}" "$@"; }
kubectl() { "${kubectlPath}" "$@"; }
# The instance's metadata, of which these functions ask only its id.
imds() { [ "$1" = instance-id ] && echo ${INSTANCE_ID}; }
# The rendered script's own function: here, the init configuration kubeadm ran with, filled.
kubeadm_init_configuration() { cat ${KUBEADM_CONFIG}; }
"$@"`,
          "bootstrap",
          fn,
          ...args,
        ],
        {
          env: {
            ...process.env,
            PATH: `${bin}:${process.env.PATH}`,
            REGION: "us-east-1",
            ENCRYPTION_KEYS_PARAMETER: encryptionKeysParameter,
            INIT_RECORD: initRecordParameter,
            SHARED_PKI_PARAMETERS: sharedPkiParameters,
            CLUSTER_CA_PARAMETER: clusterCaParameter,
            SECRETS_KEY: secretsKeyAlias(cluster.clusterName),
            ...env,
          },
        },
      );
    const cp: ControlPlane = {
      host,
      aws,
      mintCredential: (name, env = {}) => bootstrap("node-credentials", "mint_node_credential", [name], env),
      encryptionKeysParameter,
      bootstrap: (module, fn, ...args) => bootstrap(module, fn, args),
      fetchSharedPki: (root) => void bootstrap("control-plane", "fetch_shared_pki", [], { BOOTSTRAP_ROOT: root }),
      clusterCaParameter,
      sharedPkiParameters,
      kubectl,
      tryKubectl,
      kubectlPath,
      apiHost,
      targetsFile,
      stop,
    };
    // No target is in service: this instance registers only once its launch hook completes, after init.
    host.start("load-balancer", [
      "bash",
      "-c",
      LOAD_BALANCER_NET,
      "lb",
      process.execPath,
      "-e",
      LOAD_BALANCER,
      LOAD_BALANCER_IP,
      apiPort,
      targetsFile,
      NODE_IP,
    ]);
    host.must(apiPin(apiHost, "pin_api_endpoint"));
    // What user data installs, and the bootstrap's encryption-config and admin-authenticator steps
    // (bootstrapSteps.ts), before kubeadm.
    for (const [path, text] of Object.entries(userDataFiles)) host.writeFile(path, text, "0600");
    bootstrap("encryption", "write_encryption_config");
    bootstrap("authenticator", "prepare_authenticator");

    for (const phase of ["certs all", "kubeconfig all", "etcd local", "control-plane all"])
      kubeadm(["init", "phase", ...phase.split(" ")]);
    for (const [name, command] of manifestCommands(host, binaries)) host.start(name, command);
    await waitFor("the API server's /readyz", () => tryKubectl(["get", "--raw", "/readyz"]).status === 0);

    for (const phase of ["upload-config all", "bootstrap-token"]) kubeadm(["init", "phase", ...phase.split(" ")]);
    // The bootstrap's bootstrap-tokens step, once kubeadm has made the cluster (bootstrapSteps.ts).
    bootstrap("node-credentials", "retire_bootstrap_tokens");
    registerNode(cp);
    kubeadm(["init", "phase", "mark-control-plane"]);
    const skipped = (init.skipPhases ?? []) as string[];
    for (const addon of ["coredns", "kube-proxy"])
      if (!skipped.includes(`addon/${addon}`)) kubeadm(["init", "phase", "addon", addon]);
    // The bootstrap's shared-pki step: this instance created the cluster (its init record), and stores the
    // keys kubeadm init made for the next control-plane nodes.
    await aws.putParameter(initRecordParameter, `${INSTANCE_ID} 2026-01-01T00:00:00Z`, "String");
    bootstrap("control-plane", "share_control_plane_pki");
    return cp;
  } catch (e) {
    await stop();
    throw e;
  }
}
