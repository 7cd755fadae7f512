// The real control plane judges what the program renders: kubeadm 1.35, etcd 3.6, the API server, the
// controller manager and the scheduler, built from source, started from the dev stack's own kubeadm
// configuration (controlPlane.ts). Every example's Kubernetes objects are then applied through the program's
// own apply script, placed by the real scheduler on Node objects shaped as the bootstrap makes them (fresh:
// not ready, and not yet initialised by a cloud controller), and their service accounts asked of the real
// authorizer; workers and control-plane nodes join with kubeadm's own join and a credential for their own name. One file, so the API server starts once.
import { expect } from "chai";
import { dirname } from "path";
import { parse, parseAllDocuments } from "yaml";
import { applyScript } from "../../components/k8s/applyScript";
import type { K8sObject } from "../../components/k8s/object";
import { JOIN_CREDENTIAL_FILE, NODE_ROLE_FILE } from "../../components/nodes/nodeFacts";
import { modulePath } from "../../components/nodes/bootstrapModuleFiles";
import { factsHeader } from "../../components/nodes/shellHeader";
import { SHARED_PKI_FILES } from "../../components/nodes/controlPlaneNames";
import { secretsKeyAlias } from "../../components/nodes/secretPaths";
import { architectureOf } from "../../catalogs/instanceTypes";
import type { ClusterSpec } from "../../config/types";
import { requireDebianTool } from "../debianTools";
import { CLOUD_CONTROLLER, EBS_CSI_DRIVER, NODE_TERMINATION_HANDLER } from "../parity/awsAddonCases";
import { ADDONS } from "../../components/features";
import { explainIn } from "../../components/k8s/chartDifference";
import { cases, chartObjects } from "../parity/cases";
import type { KubeObject } from "../parity/compare";
import { explain } from "../../components/cilium/chartDifferences";
import { Binary, requireBinary } from "./binaries";
import { apiPin, ControlPlane, LOAD_BALANCER_IP, NODE_IP, NODE_NAME, startControlPlane } from "./controlPlane";
import { waitFor } from "../waitFor";
import {
  HEARTBEAT,
  NodeShape,
  registerNode,
  registrationTaints,
  setReady,
  taintedNotReady,
  UNINITIALIZED_TAINT,
  uninitialized,
} from "./kubeletStandIn";
import { Cloud, CLOUD_LABELS } from "./cloud";
import { renderCloudControllerManifests } from "../../components/cloudController/cloudControllerManifests";
import { requireNamespaces } from "./nodeHost";
import { allowed, chartGrants, covers, NEVER } from "./rbacCalls";
import { apiServerFilesOf, fillAsTheNode, renderedExamples } from "./renderedKubeadm";
import { validateClusterSuite } from "./validateCluster";
import { apiServerHardeningSuite } from "./apiServerHardening";

const BINARIES: Binary[] = [
  "kubeadm",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "etcd",
  "aws-cloud-controller-manager",
];

interface Pod {
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; name: string }[];
    deletionTimestamp?: string;
  };
  spec: { nodeName?: string };
  status: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

const pods = (cp: ControlPlane): Pod[] => JSON.parse(cp.kubectl(["get", "pods", "-A", "-o", "json"])).items;

/** A pod of the termination handler. */
const handlerPod = (p: Pod) => p.metadata.labels?.["app.kubernetes.io/name"] === "aws-node-termination-handler";

/** A pod of the program's add-ons: Cilium, the cloud controller manager, the EBS CSI driver, the termination handler. */
const ebsNodePod = (p: Pod) => p.metadata.labels?.app === "ebs-csi-node";

const addonPod = (p: Pod) =>
  p.metadata.labels?.["app.kubernetes.io/part-of"] === "cilium" ||
  p.metadata.labels?.["k8s-app"] === "aws-cloud-controller-manager" ||
  p.metadata.labels?.["app.kubernetes.io/name"] === "aws-ebs-csi-driver" ||
  handlerPod(p);

/**
 * The etcd-leave service's view of a node's drain (bootstrap/drain.sh `node_drained`), asked on the
 * control-plane node as the service asks it: with kubectl and the node's admin kubeconfig.
 */
function nodeDrained(cp: ControlPlane, node: string): string {
  const script = `set -euo pipefail; ${factsHeader()}source ${modulePath("lib")}; source ${modulePath("drain")}; node_drained "$1"`;
  return cp.host
    .must(["bash", "-c", script, "drained", node], {
      env: { ...process.env, PATH: `${dirname(cp.kubectlPath)}:${process.env.PATH}` },
    })
    .trim();
}

/** Why the scheduler left a pod unbound, from its PodScheduled condition. */
const unscheduledReason = (pod: Pod) =>
  pod.status.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False")?.message;

/**
 * An example's add-on objects and the scripts that apply them. With `addons.applyFrom: controlPlane`, the SSM
 * documents' own commands, one per add-on, exactly as the control-plane node runs them; otherwise the
 * program's apply script (kubectl apply --server-side) over the objects the Kubernetes provider would declare.
 */
function addonApply(stack: Map<string, string>, addons: string[]): { scripts: string[]; objects: K8sObject[] } {
  const fromProvider = [...stack]
    .filter(([name]) => name.startsWith("kubernetes/"))
    .map(([, t]) => parse(t) as K8sObject);
  if (fromProvider.length > 0) return { scripts: [applyScript("every", fromProvider)], objects: fromProvider };
  const documents = [...stack.keys()].filter((name) => name.startsWith("ssm/"));
  expect(documents, "the add-ons' SSM documents").to.have.members(addons.map((a) => `ssm/${a}-addon.sh`));
  const scripts = documents.map((d) => stack.get(d)!);
  const manifest = (script: string) =>
    /<<'CILIUM_CLUSTER_MANIFEST'\n([\s\S]*)\nCILIUM_CLUSTER_MANIFEST\n/.exec(script)![1];
  const objects = scripts.flatMap((s) => parseAllDocuments(manifest(s)).map((d) => d.toJS() as K8sObject));
  return { scripts, objects };
}

/** What an AWS add-on's parity test leaves out: its feature's reviewed differences from its chart. */
const leftOutOf = (name: string) => (path: string) =>
  explainIn(ADDONS.find((addon) => addon.name === name)!.chartDifferences, path);

/** Each add-on's chart, which service accounts of it to ask the authorizer about, and what its parity test leaves out. */
function chartAccounts(
  spec: ClusterSpec,
): { chart: KubeObject[]; accounts: string[]; leftOut: (p: string) => unknown }[] {
  return [
    { chart: chartObjects(spec), accounts: ["cilium", "cilium-operator"], leftOut: explain },
    {
      chart: CLOUD_CONTROLLER.chart(spec),
      accounts: ["cloud-controller-manager"],
      leftOut: leftOutOf("aws-cloud-controller"),
    },
    ...(spec.addons.ebsCsiDriver.enabled
      ? [
          {
            chart: EBS_CSI_DRIVER.chart(spec),
            accounts: ["ebs-csi-controller-sa", "ebs-csi-node-sa"],
            leftOut: leftOutOf("ebs-csi-driver"),
          },
        ]
      : []),
    {
      chart: NODE_TERMINATION_HANDLER.chart(spec),
      accounts: ["aws-node-termination-handler"],
      leftOut: leftOutOf("node-termination-handler"),
    },
  ];
}

/**
 * The preflight checks a control-plane join cannot pass here, and only those: no container runtime or
 * kubelet on this machine, and the joining node shares its network and /var/lib with the running one.
 */
const NOT_HERE = [
  "CRI",
  "ContainerRuntimeVersion",
  "ImagePull",
  "KubeletVersion",
  "SystemVerification",
  "Port-443",
  "Port-10257",
  "Port-10259",
  "Port-2379",
  "Port-2380",
  "DirAvailable--var-lib-etcd",
];

describe("the real control plane (kubeadm, etcd, API server, controller manager, scheduler built from source)", function () {
  this.timeout(900_000);
  let cp: ControlPlane;
  let binaries: Record<Binary, string>;
  let stacks: Map<string, Map<string, string>>;
  let cloud: Cloud;

  before(async function () {
    requireDebianTool(this, "openssl", "openssl");
    requireNamespaces(this);
    binaries = Object.fromEntries(BINARIES.map((b) => [b, requireBinary(this, b)])) as Record<Binary, string>;
    stacks = await renderedExamples();
    const dev = stacks.get("dev")!;
    const init = [...dev].find(([name]) => /^kubeadm\/control-plane-.*-init\.yaml$/.test(name))![1];
    const userData = [...dev].find(([name]) => /^bootstrap\/control-plane-.*\.sh$/.test(name))![1];
    cp = await startControlPlane(
      init,
      binaries,
      (plane) => registerNode(plane, { name: NODE_NAME, arch: "amd64", taints: registrationTaints(init) }, NODE_IP),
      apiServerFilesOf(userData),
    );
    // The first node's instance; its providerID, which the bootstrap gives the kubelet before kubeadm
    // registers the node (bootstrap/kubelet.sh), once the host it runs in exists.
    const clusterName = parse(init.split("\n---\n").find((d) => d.includes("kind: ClusterConfiguration"))!)
      .clusterName as string;
    cloud = await Cloud.start(this, cp, clusterName);
    const first = cloud.runInstance(cases().find((c) => c.name === "dev")!.spec.controlPlane.instanceType, NODE_IP);
    expect(first.name, "EC2's name for the first node's address").to.equal(NODE_NAME);
    cp.kubectl([
      "patch",
      "node",
      NODE_NAME,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { providerID: first.providerID } }),
    ]);
    // What the bootstrap's role.sh records first; the apply script reads it.
    cp.host.writeFile(NODE_ROLE_FILE, "control-plane\n");
    cp.host.start("heartbeat", [
      "env",
      `KUBECTL=${cp.kubectlPath}`,
      "KUBECONFIG=/etc/kubernetes/admin.conf",
      "bash",
      "-c",
      HEARTBEAT,
    ]);
  });

  after(() => cp?.stop());

  it("runs etcd at the version kubeadm pins, and kubeadm marked the node it initialised as a control-plane node", function () {
    const images = cp.host.must([
      binaries.kubeadm,
      "config",
      "images",
      "list",
      "--config",
      "/etc/kubernetes/kubeadm.yaml",
    ]);
    const pinned = /registry\.k8s\.io\/etcd:(\S+)-0/.exec(images)![1];
    expect(cp.host.must([binaries.etcd, "--version"])).to.contain(`etcd Version: ${pinned}`);
    const node = JSON.parse(cp.kubectl(["get", "node", NODE_NAME, "-o", "json"]));
    expect(node.metadata.labels).to.have.property("node-role.kubernetes.io/control-plane", "");
    expect(node.spec.taints.map((t: { key: string; effect: string }) => `${t.key}:${t.effect}`)).to.include(
      "node-role.kubernetes.io/control-plane:NoSchedule",
    );
  });

  it("the first node's kubeadm init reached its own API server at the API's name; the load balancer had no target for it", function () {
    // startControlPlane ran init's phases after the static pods (upload-config, bootstrap-token,
    // mark-control-plane, addons) through admin.conf, whose server is controlPlaneEndpoint, with the name
    // pinned as the bootstrap pins it. Without the pin (the order before), the same call goes to the load
    // balancer: no target is in service while this instance's launch hook waits, and once it is in service
    // the load balancer never routes the instance to itself.
    const readyz = () => cp.tryKubectl(["get", "--raw", "/readyz", "--request-timeout=5s"]).status;
    expect(readyz(), "pinned").to.equal(0);
    cp.host.must(apiPin(cp.apiHost, "unpin_api_endpoint"));
    // The name back to what DNS answers: the load balancer.
    cp.host.must(["bash", "-c", `echo "${LOAD_BALANCER_IP} ${cp.apiHost}" >>/etc/hosts`]);
    try {
      expect(readyz(), "through the load balancer, no target in service").to.not.equal(0);
      cp.host.writeFile(cp.targetsFile, `${NODE_IP}\n`);
      expect(readyz(), "through the load balancer, to itself").to.not.equal(0);
      // Another instance in service (here the same API server at a second address): the load balancer forwards.
      cp.host.must(["ip", "addr", "add", "10.0.1.11/24", "dev", "eth0"]);
      cp.host.writeFile(cp.targetsFile, `${NODE_IP}\n10.0.1.11\n`);
      expect(readyz(), "through the load balancer, to another instance in service").to.equal(0);
    } finally {
      cp.host.run(["ip", "addr", "del", "10.0.1.11/24", "dev", "eth0"]);
      cp.host.writeFile(cp.targetsFile, "");
      cp.host.must(apiPin(cp.apiHost, "pin_api_endpoint"));
    }
    expect(readyz(), "pinned again").to.equal(0);
  });

  it("stores the keys kubeadm init made on the node, each under the cluster's key, and then the CA's certificate", async function () {
    const stored = await cp.aws.parameters();
    const file = (path: string) => cp.host.must(["cat", `/etc/kubernetes/pki/${path}`]);
    for (const path of SHARED_PKI_FILES) {
      const parameter = stored[`${cp.sharedPkiParameters}${path}`];
      expect(parameter, path).to.not.equal(undefined);
      expect(parameter.value, path).to.equal(file(path).replace(/\n$/, ""));
      expect(parameter.type, path).to.equal("SecureString");
      expect(parameter.keyId, path).to.equal(secretsKeyAlias("dev.k8s.local"));
    }
    // kubeadm made them: the CA the API server serves with, signing its certificate.
    expect(
      cp.host.run(["openssl", "verify", "-CAfile", "/etc/kubernetes/pki/ca.crt", "/etc/kubernetes/pki/apiserver.crt"])
        .status,
    ).to.equal(0);
    expect(stored[cp.clusterCaParameter]).to.deep.include({ type: "String", value: file("ca.crt").replace(/\n$/, "") });
  });

  it("keeps no bootstrap token after init, nor kubeadm's approval of any node name for one; a node's own approval stays", function () {
    const tokens = cp.host.must([binaries.kubeadm, "token", "list", "--kubeconfig", "/etc/kubernetes/admin.conf"]);
    expect(tokens.trim(), "bootstrap tokens").to.equal("");
    const binding = (name: string) => cp.tryKubectl(["get", "clusterrolebinding", name]).status;
    expect(binding("kubeadm:node-autoapprove-bootstrap"), "the blanket approval").to.not.equal(0);
    expect(binding("kubeadm:node-autoapprove-certificate-rotation"), "a node's approval of its own name").to.equal(0);
  });

  it("joins a worker and a control-plane node with a credential for their own name; no expired one, and no certificate for another node's name", async function () {
    const dev = stacks.get("dev")!;
    const fetched = cp.host.must(["mktemp", "-d"]).trim();
    cp.fetchSharedPki(fetched);
    const run = (text: string, credential: string, seconds = 60) => {
      const filled = fillAsTheNode(text, { nodeIp: "10.0.1.11" });
      // A joining node's own /etc/kubernetes and /var/lib/kubelet: kubeadm's discovery with the credential,
      // then its fetch of the cluster's configuration with it, are what this checks; the kubelet it then starts
      // does not exist here, so kubeadm is stopped once it has written the kubelet's bootstrap kubeconfig,
      // or after `seconds` (it retries discovery until its own 5-minute timeout). Exits 0 when the control
      // plane's preflight passed, or the worker's bootstrap kubeconfig was written.
      return cp.host.run(
        [
          "unshare",
          "--mount",
          "--propagation",
          "private",
          "bash",
          "-c",
          `own=$(mktemp -d)
# A control-plane node fetches the cluster's shared CAs and service-account key before it joins: those the
# first node stored (FETCHED_, by the bootstrap's fetch_shared_pki).
if [ "$1" = preflight ]; then cp -a "$FETCHED_/etc/kubernetes/pki" "$own/pki"; fi
mount --bind "$own" /etc/kubernetes && mkdir -p /var/lib/kubelet && mount -t tmpfs tmpfs /var/lib/kubelet
cat >/etc/kubernetes/join.yaml && mkdir -p /etc/kubernetes/patches
printf '%s\n' "$CREDENTIAL_" >${JOIN_CREDENTIAL_FILE}
"$0" join phase "$@" --config /etc/kubernetes/join.yaml --v=1 >"$own/log" 2>&1 &
kubeadm=$!
for _ in $(seq "$((2 * SECONDS_))"); do
  if [ -s /etc/kubernetes/bootstrap-kubelet.conf ] || ! kill -0 "$kubeadm" 2>/dev/null; then break; fi
  sleep 0.5
done
kill "$kubeadm" 2>/dev/null
wait "$kubeadm"
status=$?
cat "$own/log"
if [ "$1" = preflight ]; then exit $status; fi
test -s /etc/kubernetes/bootstrap-kubelet.conf`,
          binaries.kubeadm,
          ...(/controlPlane:/.test(text)
            ? ["preflight", `--ignore-preflight-errors=${NOT_HERE.join(",")}`]
            : ["kubelet-start"]),
        ],
        {
          input: filled,
          timeout: 90_000,
          env: { ...process.env, SECONDS_: String(seconds), CREDENTIAL_: credential, FETCHED_: fetched },
        },
      );
    };
    const worker = dev.get("kubeadm/nodes-join.yaml")!;
    const controlPlane = [...dev].find(([n]) => /^kubeadm\/control-plane-.*-join\.yaml$/.test(n))![1];
    const workerName = "ip-10-0-1-11.ec2.internal";
    const credential = cp.mintCredential(workerName);

    const joined = run(worker, credential);
    expect(joined.status, `a worker: discovery, then the bootstrap kubeconfig\n${joined.stdout}`).to.equal(0);
    // A control-plane join's preflight fetches the cluster's configuration with the node's credential.
    const cpJoin = run(controlPlane, cp.mintCredential("ip-10-0-1-12.ec2.internal"));
    expect(cpJoin.status, cpJoin.stdout).to.equal(0);
    const expired = run(worker, cp.mintCredential(workerName, { NODE_CREDENTIAL_MINUTES: "0" }), 10);
    expect(expired.status, "an expired credential: no bootstrap kubeconfig").to.not.equal(0);

    // The kubelet's certificate request, as the kubelet makes it with the credential (k8s.io/client-go
    // util/certificate/csr): the real controller manager's approver grants its own name's; one for another
    // node's name is refused on creation (the API server's NodeRestriction admission, as of 1.35), and a
    // bootstrap token's (kubeadm's way, which let any holder ask for any name) is never approved.
    cp.host.writeFile("/tmp/node-credential.conf", credential, "0600");
    const request = (name: string, kubeconfig: string) => {
      const csr = cp.host.must([
        "bash",
        "-c",
        `openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout /dev/null -subj "/O=system:nodes/CN=system:node:$1" 2>/dev/null | base64 -w0`,
        "csr",
        name,
      ]);
      const object = {
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { generateName: "node-csr-" },
        spec: {
          request: csr,
          signerName: "kubernetes.io/kube-apiserver-client-kubelet",
          usages: ["digital signature", "client auth"],
        },
      };
      return cp.host.run([cp.kubectlPath, "--kubeconfig", kubeconfig, "create", "-o", "name", "-f", "-"], {
        input: JSON.stringify(object),
      });
    };
    const created = (r: { status: number | null; stdout: string; stderr: string }) => {
      expect(r.status, r.stderr).to.equal(0);
      return r.stdout.trim();
    };
    const approved = (csr: string) =>
      (JSON.parse(cp.kubectl(["get", csr, "-o", "json"])).status.conditions ?? []).some(
        (c: { type: string }) => c.type === "Approved",
      );
    const token = cp.host
      .must([binaries.kubeadm, "token", "create", "--kubeconfig", "/etc/kubernetes/admin.conf"])
      .trim();
    const csrs: string[] = [];
    try {
      const admin = parse(cp.host.must(["cat", "/etc/kubernetes/admin.conf"]));
      const bootstrapKubeconfig = {
        apiVersion: "v1",
        kind: "Config",
        clusters: admin.clusters,
        users: [{ name: "token", user: { token } }],
        contexts: [{ name: "token", context: { cluster: admin.clusters[0].name, user: "token" } }],
        "current-context": "token",
      };
      cp.host.writeFile("/tmp/bootstrap-token.conf", JSON.stringify(bootstrapKubeconfig), "0600");
      const byToken = created(request("ip-10-0-1-13.ec2.internal", "/tmp/bootstrap-token.conf"));
      csrs.push(byToken);
      const own = created(request(workerName, "/tmp/node-credential.conf"));
      csrs.push(own);
      expect(request(NODE_NAME, "/tmp/node-credential.conf").status, "a request for another node's name").to.not.equal(
        0,
      );
      await waitFor("the node's request for its own name approved", () => approved(own), 30_000);
      // The token's request was made first: the approver has had it longer than the node's own.
      await new Promise((r) => setTimeout(r, 5000));
      expect(approved(byToken), "a certificate for a bootstrap token").to.equal(false);
    } finally {
      cp.host.must([
        binaries.kubeadm,
        "token",
        "delete",
        token.split(".")[0],
        "--kubeconfig",
        "/etc/kubernetes/admin.conf",
      ]);
      if (csrs.length > 0) cp.kubectl(["delete", ...csrs]);
    }
  });

  for (const exampleCase of cases().filter((c) => !c.name.includes(","))) {
    const example = exampleCase.name;
    it(`${example}: every object applies through the program's apply script; the scheduler places every add-on on fresh nodes; RBAC holds`, async function () {
      const stack = stacks.get(example)!;
      const spec = exampleCase.spec;
      const addons = [
        "aws-cloud-controller",
        "cilium",
        ...(spec.addons.ebsCsiDriver.enabled ? ["ebs-csi-driver"] : []),
        "node-termination-handler",
      ];
      const { scripts, objects } = addonApply(stack, addons);
      const eni = spec.networking.cilium.ipam === "eni";

      // The nodes of this example beside the control-plane node kubeadm made: its other control-plane nodes
      // (marked by kubeadm join as by init) and one node of each group, registered with their configurations' taints.
      const joins = [...stack].filter(([name]) => name.endsWith("-join.yaml"));
      const controlPlaneJoin = joins.find(([n]) => n.includes("control-plane-"))![1];
      const archOf = (instanceType: string): NodeShape["arch"] =>
        architectureOf(instanceType) === "arm64" ? "arm64" : "amd64";
      // Each runs as an instance in EC2, named as EC2 names it, its providerID that instance.
      const instanceOf = (shape: Omit<NodeShape, "name">, instanceType: string) => {
        const instance = cloud.runInstance(instanceType);
        return { shape: { ...shape, name: instance.name, providerID: instance.providerID }, address: instance.address };
      };
      const registered = [
        ...Array.from({ length: spec.controlPlane.count - 1 }, () =>
          instanceOf(
            {
              arch: archOf(spec.controlPlane.instanceType),
              labels: {
                "node-role.kubernetes.io/control-plane": "",
                "node.kubernetes.io/exclude-from-external-load-balancers": "",
              },
              taints: registrationTaints(controlPlaneJoin),
            },
            spec.controlPlane.instanceType,
          ),
        ),
        ...spec.nodeGroups.map((g) =>
          instanceOf(
            {
              arch: archOf(g.instanceType),
              taints: registrationTaints(stack.get(`kubeadm/${g.name}-join.yaml`)!),
            },
            g.instanceType,
          ),
        ),
      ];
      const nodes = registered.map((r) => r.shape);
      // The first node is fresh again too: not ready, and not initialised by a cloud controller.
      setReady(cp, [NODE_NAME], false);
      const cloudTaint = `${UNINITIALIZED_TAINT.key}=${UNINITIALIZED_TAINT.value}:${UNINITIALIZED_TAINT.effect}`;
      cp.kubectl(["taint", "node", NODE_NAME, cloudTaint, "--overwrite"]);
      cp.kubectl(["label", "node", NODE_NAME, ...CLOUD_LABELS.map((l) => `${l}-`)]);
      for (const { shape, address } of registered) registerNode(cp, shape, address);
      const allNodes = [NODE_NAME, ...nodes.map((n) => n.name)];
      try {
        // As on a new cluster: the node lifecycle controller has tainted every node not-ready before Cilium runs.
        await waitFor("not-ready taints on every node", () => allNodes.every((n) => taintedNotReady(cp, n)));
        for (const script of scripts) {
          const applied = cp.host.run(["sh", "-c", script], {
            env: { ...process.env, PATH: `${dirname(cp.kubectlPath)}:${process.env.PATH}` },
          });
          expect(applied.status, `${applied.stdout}${applied.stderr}`).to.equal(0);
        }

        const controlPlaneNodes = new Set([NODE_NAME, ...nodes.filter((n) => n.labels).map((n) => n.name)]);
        // The cloud controller manager runs on the control plane only; every other DaemonSet on every node (the
        // EBS node plugin's once the nodes are initialised: below).
        const daemonSets = objects
          .filter((o) => o.kind === "DaemonSet" && o.metadata.name !== "ebs-csi-node")
          .map((o) => o.metadata.name);
        expect(daemonSets).to.include.members(["cilium", "aws-cloud-controller-manager"]);
        const nodesOf = (ds: string) => (ds === "aws-cloud-controller-manager" ? [...controlPlaneNodes] : allNodes);
        const daemonSetPods = (all: Pod[], ds: string) =>
          all.filter((p) => p.metadata.ownerReferences?.some((o) => o.kind === "DaemonSet" && o.name === ds));
        const operatorPods = (all: Pod[]) => all.filter((p) => p.metadata.labels?.["io.cilium/app"] === "operator");
        const placed = (all: Pod[]) =>
          daemonSets.every((ds) =>
            nodesOf(ds).every((n) => daemonSetPods(all, ds).some((p) => p.spec.nodeName === n)),
          ) &&
          operatorPods(all).length > 0 &&
          operatorPods(all).every((p) => p.spec.nodeName);
        // Cilium and the cloud controller manager must be placed while every node is still not ready and not
        // initialised: Cilium is what makes them ready, the cloud controller what initialises them.
        await waitFor(`${example}: the add-ons' pods bound on fresh nodes`, () => placed(pods(cp)), 90_000).catch(
          () => undefined,
        );
        const all = pods(cp);
        for (const ds of daemonSets) {
          const on = daemonSetPods(all, ds).map((p) => p.spec.nodeName);
          expect(
            nodesOf(ds).filter((n) => !on.includes(n)),
            `${ds} has no pod bound on`,
          ).to.deep.equal([]);
          expect(
            on.filter((n) => !nodesOf(ds).includes(n!)),
            `${ds} bound where it must not run`,
          ).to.deep.equal([]);
        }
        const operators = operatorPods(all);
        expect(operators.length, "operator pods").to.be.greaterThan(0);
        for (const p of operators) {
          expect(p.spec.nodeName, `${p.metadata.name}: ${unscheduledReason(p)}`).to.be.a("string");
          if (eni)
            expect(
              controlPlaneNodes.has(p.spec.nodeName!),
              `${p.metadata.name} on the control plane in ENI mode`,
            ).to.equal(true);
        }

        if (eni) {
          // The scheduler refuses the operator every worker: with the control plane cordoned, a new operator
          // pod stays unbound, though the workers are ready.
          setReady(cp, allNodes, true);
          for (const n of controlPlaneNodes) cp.kubectl(["cordon", n]);
          cp.kubectl([
            "delete",
            "pods",
            "-n",
            "kube-system",
            "-l",
            "io.cilium/app=operator",
            "--force",
            "--grace-period=0",
          ]);
          const refused = () => {
            const fresh = operatorPods(pods(cp)).filter((p) => !p.metadata.deletionTimestamp);
            return fresh.length > 0 && fresh.every((p) => !p.spec.nodeName && unscheduledReason(p));
          };
          await waitFor(`${example}: the scheduler's verdict on an operator with only workers`, refused, 60_000);
          for (const n of controlPlaneNodes) cp.kubectl(["uncordon", n]);
        }

        // Once the kubelets report ready (Cilium has written the CNI configuration), every add-on pod is bound,
        // though no cloud controller has initialised a node yet: what a fresh cluster needs first tolerates
        // that taint, or the cluster would wait on itself.
        setReady(cp, allNodes, true);
        const unbound = (which: (p: Pod) => boolean) =>
          pods(cp).filter((p) => which(p) && !p.spec.nodeName && !p.metadata.deletionTimestamp);
        const unboundReasons = (which: (p: Pod) => boolean) =>
          unbound(which).map((p) => `${p.metadata.name}: ${unscheduledReason(p) ?? "not yet tried"}`);
        await waitFor(`${example}: the add-ons' pods bound`, () => unbound(addonPod).length === 0, 90_000).catch(
          () => undefined,
        );
        expect(
          unboundReasons(addonPod),
          "add-on pods the scheduler leaves unbound on uninitialised nodes",
        ).to.deep.equal([]);
        // But the EBS node plugin, which needs its node's zone: its DaemonSet makes no pod before the cloud
        // controller has labelled the node (below, one on each).
        expect(pods(cp).filter(ebsNodePod), "EBS node plugin pods on uninitialised nodes").to.deep.equal([]);
        expect(
          allNodes.filter((n) => !uninitialized(cp, n)),
          "nodes without the cloud taint",
        ).to.deep.equal([]);
        if (spec.addons.ebsCsiDriver.enabled) {
          const controllers = pods(cp).filter((p) => p.metadata.labels?.app === "ebs-csi-controller");
          expect(controllers.length, "EBS CSI controller pods").to.be.greaterThan(0);
          for (const p of controllers)
            expect(controlPlaneNodes.has(p.spec.nodeName!), `${p.metadata.name} on the control plane`).to.equal(true);
        }
        // The termination handler runs on the control plane only, bound before any cloud controller has
        // initialised a node: the drain of a node the controller never initialised must not wait for it.
        const handlers = pods(cp).filter(handlerPod);
        expect(handlers.length, "termination handler pods").to.be.greaterThan(0);
        for (const p of handlers)
          expect(controlPlaneNodes.has(p.spec.nodeName!), `${p.metadata.name} on the control plane`).to.equal(true);
        // The real cloud controller manager, as the pod just bound, initialises the nodes; then nothing
        // (kubeadm's CoreDNS too) stays unscheduled.
        const manager = objects.filter(
          (o) => o.kind === "DaemonSet" && o.metadata.name === "aws-cloud-controller-manager",
        );
        await cloud.initialise(
          binaries["aws-cloud-controller-manager"],
          { foundation: [], workloads: manager },
          allNodes,
        );
        for (const name of allNodes)
          expect(
            Object.keys(JSON.parse(cp.kubectl(["get", "node", name, "-o", "json"])).metadata.labels),
            `${name}: the labels the cloud controller manager sets`,
          ).to.include.members(CLOUD_LABELS);
        const any = () => true;
        await waitFor(`${example}: every pod bound on ready nodes`, () => unbound(any).length === 0, 90_000).catch(
          () => undefined,
        );
        expect(unboundReasons(any), "pods the scheduler leaves unbound on ready, initialised nodes").to.deep.equal([]);
        if (spec.addons.ebsCsiDriver.enabled) {
          await waitFor(
            `${example}: an EBS node plugin pod on each initialised node`,
            () => {
              const on = pods(cp)
                .filter(ebsNodePod)
                .map((p) => p.spec.nodeName);
              return allNodes.every((n) => on.includes(n));
            },
            60_000,
          );
        }

        // The etcd-leave service's wait on the drain, on the API's own answers: the first node, with Cilium's
        // and the cloud controller's DaemonSet pods, the handler and what a drain evicts, is drained only once
        // cordoned and rid of the evicted pods (the handler evicts; here they are deleted as an eviction ends).
        if (example === "dev") {
          const evicted = () =>
            pods(cp).filter(
              (p) =>
                p.spec.nodeName === NODE_NAME &&
                !handlerPod(p) &&
                !p.metadata.ownerReferences?.some((o) => o.kind === "DaemonSet"),
            );
          expect(evicted().length, "pods a drain of the first node evicts").to.be.greaterThan(0);
          expect(
            pods(cp).some((p) => p.spec.nodeName === NODE_NAME && handlerPod(p)),
            "the handler on it",
          ).to.equal(true);
          expect(nodeDrained(cp, NODE_NAME), "schedulable").to.equal("no: not cordoned");
          cp.kubectl(["cordon", NODE_NAME]);
          try {
            expect(nodeDrained(cp, NODE_NAME), "cordoned, pods left").to.equal(
              `no: ${evicted()
                .map((p) => `${p.metadata.namespace}/${p.metadata.name}`)
                .sort()
                .join(" ")}`,
            );
            for (const p of evicted())
              cp.kubectl(["delete", "pod", "-n", p.metadata.namespace, p.metadata.name, "--force", "--grace-period=0"]);
            await waitFor("the evicted pods gone", () => evicted().length === 0, 30_000);
            expect(nodeDrained(cp, NODE_NAME), "cordoned, only what a drain leaves").to.equal("yes");
          } finally {
            cp.kubectl(["uncordon", NODE_NAME]);
          }
          expect(nodeDrained(cp, "no-such-node"), "a Node that is gone").to.equal("yes");
        }

        // RBAC: every call each chart's roles grant its accounts, and none of a sample they never make.
        for (const { chart, accounts, leftOut } of chartAccounts(spec))
          for (const sa of accounts) {
            const grants = chartGrants(chart, sa, leftOut).filter((c) => !c.resource.includes("*"));
            expect(grants.length, `${sa}: the chart's grants`).to.be.greaterThan(3);
            const answers = allowed(cp, sa, grants);
            expect(
              grants.filter((_, i) => !answers[i]),
              `${sa}: calls the chart grants that are denied`,
            ).to.deep.equal([]);
            const never = NEVER.filter((call) => !grants.some((g) => covers(g, call)));
            expect(never.length, `${sa}: the sample of calls never made`).to.be.greaterThan(5);
            const denied = allowed(cp, sa, never);
            expect(
              never.filter((_, i) => denied[i]),
              `${sa}: calls it never makes that are allowed`,
            ).to.deep.equal([]);
          }
      } finally {
        // Nothing of this example may reach the next: its objects, their pods (no kubelet ends them), its nodes.
        const yaml = objects.map((o) => JSON.stringify(o)).join("\n");
        cp.kubectl(["delete", "--ignore-not-found", "--wait", "--timeout=60s", "-f", "-"], yaml);
        cp.kubectl(["delete", "pods", "-A", "--all", "--force", "--grace-period=0"]);
        for (const node of nodes) cp.kubectl(["delete", "node", node.name]);
        for (const node of nodes) cp.kubectl(["delete", "lease", "-n", "kube-node-lease", node.name]);
        await waitFor(`${example}: the add-ons' pods gone`, () => pods(cp).filter(addonPod).length === 0, 60_000);
      }
    });
  }

  // Last: it leaves the dev stack's cluster behind, broken.
  validateClusterSuite(
    () => cp,
    (spec, nodes) =>
      cloud.initialise(
        binaries["aws-cloud-controller-manager"],
        renderCloudControllerManifests(spec, cp.apiHost),
        nodes,
      ),
  );
  apiServerHardeningSuite(() => cp);
});
