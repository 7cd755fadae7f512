// A Kubernetes upgrade against a real control plane one minor behind: kubeadm 1.34, the API server, controller
// manager and scheduler of 1.34, built from source (etcd 3.6.6, the one etcd the tests build; kubeadm 1.34
// pins 3.6.5), started from the program's own 1.34 configuration with kube-proxy disabled (controlPlane.ts).
// Then a new control-plane node of 1.35.4 (a host of its own name and files in the old node's network) runs
// the program's upgrade step, the function of its rendered bootstrap script, with the real kubeadm 1.35, and
// kubeadm's own join judges what the cluster then is: without a kubelet it goes as far as its dry run. One
// file, so the control plane starts once.
import { expect } from "chai";
import { basename, join } from "path";
import { parse } from "yaml";
import { kubeadmEtcd } from "../../config/validation/kubernetesUpgrade";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import {
  JOIN_CREDENTIAL_FILE,
  UPGRADE_FINISHED_ANNOTATION,
  UPGRADE_MOVED_ANNOTATION,
} from "../../components/nodes/nodeFacts";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { kubeadmConfigurations } from "../../components/nodes/kubeadmConfig";
import { renderBootstrapScript, renderUserData } from "../../components/nodes/userData";
import type { ClusterSpec } from "../../config/types";
import { requireDebianTool } from "../debianTools";
import { specWith } from "../fixtures";
import { layerBinary } from "../helm";
import { Binary, requireBinary } from "./binaries";
import { ControlPlane, NODE_IP, NODE_NAME, startControlPlane } from "./controlPlane";
import { HEARTBEAT, postMirrorPods, registerNode, registrationTaints, setReady } from "./kubeletStandIn";
import { requireNamespaces } from "./nodeHost";
import { apiServerFilesOf, ec2NodeName, fillAsTheNode } from "./renderedKubeadm";

const OLD = "1.34.12";
const NEW = "1.35.4";
const NEW_NODE = "ip-10-0-1-11.ec2.internal";
const API = { internal: "api.internal.dev.k8s.local", public: "api.dev.example.com", caParameter: "/cluster-ca" };
const STATIC_PODS = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"];

/** The cluster at a release: CRD IPAM with Cilium replacing kube-proxy, one control-plane node. */
const specAt = (version: string): ClusterSpec =>
  specWith({
    kubernetesVersion: version,
    networking: { cilium: { ipam: "crd", disableMasquerade: false, enableNodePort: true } },
    kubeProxy: { enabled: false },
  });

/** What the program renders for the control-plane group at a release: its kubeadm files and bootstrap script. */
function controlPlaneGroup(version: string) {
  const spec = specAt(version);
  const group = instanceGroups(spec).find((g) => g.role === "control-plane")!;
  const config = bootstrapConfig(spec, group, API, {
    initRecord: "/init-record",
    restoreRequest: "/restore",
    backupBucket: "backups",
    encryptionKeys: "/encryption-keys",
    sharedPki: "/pki/",
    adminRoleArn: "arn:aws:iam::000000000000:role/admins.dev.k8s.local",
  });
  return {
    kubeadm: kubeadmConfigurations(config),
    script: renderBootstrapScript(config),
    userData: apiServerFilesOf(renderUserData(config)),
  };
}

/**
 * The checks a node's preflight cannot pass here, and only those: no container runtime or kubelet, and the
 * new node shares its network with the old one.
 */
const NOT_HERE = [
  "CRI",
  "ContainerRuntimeVersion",
  "ImagePull",
  "KubeletVersion",
  "SystemVerification",
  "Port-443",
  "Port-10250",
  "Port-10257",
  "Port-10259",
  "Port-2379",
  "Port-2380",
];

/**
 * The new node, inside the old node's network: its own hostname, and its own /etc/kubernetes (DIR's, holding
 * the CAs its bootstrap fetches), /var/lib/kubelet and /var/lib/etcd; its PATH holds kubeadm 1.35 and kubectl.
 * /var/lib/kubelet is empty until it has joined (DIR's var-lib-kubelet then).
 */
const NEW_NODE_SETUP = `set -e
dir=$1 name=$2; shift 2
hostname "$name"
mount --bind "$dir/etc-kubernetes" /etc/kubernetes
for d in /var/lib/kubelet /var/lib/etcd; do mkdir -p "$d"; mount -t tmpfs tmpfs "$d"; done
if [ -d "$dir/var-lib-kubelet" ]; then mount --bind "$dir/var-lib-kubelet" /var/lib/kubelet; fi
export PATH="$dir/bin:$PATH"
exec "$@"`;

interface Run {
  status: number | null;
  out: string;
}

describe(`a Kubernetes upgrade, ${OLD} → ${NEW}, against a real control plane one minor behind`, function () {
  this.timeout(900_000);
  let cp: ControlPlane;
  let kubeadm: Record<"old" | "new", string>;
  let newNode: string;
  let builtWith: { uid: string; ca: string; kubelet: Record<string, string>; coredns: string };

  /** A command on the new node; DRYRUN names kubeadm join's dry-run directory. */
  const onNewNode = (command: string[], env: Record<string, string> = {}): Run => {
    const r = cp.host.run(
      [
        "unshare",
        "--mount",
        "--uts",
        "--propagation",
        "private",
        "bash",
        "-c",
        NEW_NODE_SETUP,
        "new-node",
        newNode,
        NEW_NODE,
        ...command,
      ],
      {
        env: { ...process.env, BOOTSTRAP_RETRY_DELAY: "1", BOOTSTRAP_TRIES: "3", ...env },
        timeout: 300_000,
      },
    );
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  };
  /** A function of the rendered bootstrap script of a control-plane node at VERSION, run on the new node. */
  const bootstrapFunction = (version: string, fn: string, env: Record<string, string> = {}): Run => {
    cp.host.writeFile(join(newNode, `bootstrap-${version}`), controlPlaneGroup(version).script, "0700");
    const bin = join(newNode, "bin");
    cp.host.must(["ln", "-sf", version === NEW ? kubeadm.new : kubeadm.old, join(bin, "kubeadm")]);
    return onNewNode(["bash", join(newNode, `bootstrap-${version}`), fn], env);
  };
  const clusterConfiguration = () =>
    parse(
      JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-system", "kubeadm-config", "-o", "json"])).data
        .ClusterConfiguration,
    );
  const get = (args: string[]) => cp.tryKubectl(["get", ...args, "-o", "json"]);
  const image = (kind: string, name: string) =>
    JSON.parse(cp.kubectl(["get", kind, "-n", "kube-system", name, "-o", "json"])).spec.template.spec.containers[0]
      .image as string;

  /**
   * kubeadm join --dry-run of the new node with its group's rendered join configuration: discovery with the
   * node's credential (as its bootstrap signs it), the cluster's configuration, then every file it would
   * write, in a directory of its own.
   */
  const dryRunJoin = (): { status: number | null; out: string; file: (name: string) => string } => {
    const text = controlPlaneGroup(NEW).kubeadm.join;
    const filled = fillAsTheNode(text, { nodeIp: NODE_IP });
    cp.host.writeFile(join(newNode, "etc-kubernetes", "kubeadm.yaml"), filled, "0600");
    const credential = cp.mintCredential(ec2NodeName(NODE_IP));
    cp.host.writeFile(join(newNode, "etc-kubernetes", basename(JOIN_CREDENTIAL_FILE)), credential, "0600");
    const dryRun = join(newNode, `dry-run-${Date.now()}`);
    cp.host.must(["mkdir", "-p", dryRun]);
    const r = onNewNode(
      [
        kubeadm.new,
        "join",
        "--dry-run",
        "--config",
        "/etc/kubernetes/kubeadm.yaml",
        `--ignore-preflight-errors=${NOT_HERE.join(",")}`,
      ],
      {
        KUBEADM_JOIN_DRYRUN_DIR: dryRun,
      },
    );
    return { ...r, file: (name) => cp.host.must(["cat", join(dryRun, name)]) };
  };
  const podImage = (manifest: string) => parse(manifest).spec.containers[0].image as string;

  before(async function () {
    requireDebianTool(this, "openssl", "openssl");
    requireNamespaces(this);
    const old: Binary[] = ["kubeadm", "kube-apiserver", "kube-controller-manager", "kube-scheduler"];
    const binaries = {
      ...Object.fromEntries(old.map((b) => [b, requireBinary(this, b, `v${OLD}`)])),
      etcd: requireBinary(this, "etcd"),
    } as Record<Binary, string>;
    kubeadm = { old: binaries.kubeadm, new: requireBinary(this, "kubeadm", `v${NEW}`) };
    const group = controlPlaneGroup(OLD);
    const init = group.kubeadm.init!;
    cp = await startControlPlane(
      init,
      binaries,
      (plane) =>
        registerNode(
          plane,
          { name: NODE_NAME, arch: "amd64", taints: registrationTaints(init), kubeletVersion: `v${OLD}` },
          NODE_IP,
        ),
      group.userData,
    );
    cp.host.start("heartbeat", [
      "env",
      `KUBECTL=${cp.kubectlPath}`,
      "KUBECONFIG=/etc/kubernetes/admin.conf",
      "bash",
      "-c",
      HEARTBEAT,
    ]);
    setReady(cp, [NODE_NAME], true);
    // No kubelet would run the Job of kubeadm's CreateJob health check: with no schedulable node kubeadm
    // skips that check (phases/upgrade/health.go), and checks the rest.
    cp.kubectl(["cordon", NODE_NAME]);
    // The kubelet's mirror pods of the static pods kubeadm 1.34 wrote.
    postMirrorPods(
      cp,
      NODE_NAME,
      STATIC_PODS.map((p) => cp.host.must(["cat", `/etc/kubernetes/manifests/${p}.yaml`])),
    );
    // A workload's object, the cluster's identity and what it was built with, before anything else runs.
    cp.kubectl(["create", "configmap", "witness", "--from-literal=written=before-the-upgrade"]);
    builtWith = {
      uid: JSON.parse(cp.kubectl(["get", "namespace", "kube-system", "-o", "json"])).metadata.uid,
      ca: JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-public", "cluster-info", "-o", "json"])).data
        .kubeconfig,
      kubelet: JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-system", "kubelet-config", "-o", "json"])).data,
      coredns: image("deployment", "coredns"),
    };
    // The new node's files before it boots: the CAs its bootstrap fetches (those the first node stored), its
    // patches directory.
    newNode = join(cp.host.root, "new-node");
    cp.fetchSharedPki(join(newNode, "fetched"));
    cp.host.must(["mkdir", "-p", join(newNode, "etc-kubernetes", "patches"), join(newNode, "bin")]);
    cp.host.must(["cp", "-a", join(newNode, "fetched", "etc", "kubernetes", "pki"), join(newNode, "etc-kubernetes")]);
    cp.host.must(["ln", "-sf", layerBinary("kubectl"), join(newNode, "bin", "kubectl")]);
  });

  after(() => cp?.host.stop());

  it(`kubeadm ${NEW} on the old control-plane node plans the upgrade to ${NEW}, and refuses a downgrade and a skipped minor`, function () {
    const plan = cp.host.run([
      kubeadm.new,
      "upgrade",
      "plan",
      `v${NEW}`,
      `--ignore-preflight-errors=${NOT_HERE.join(",")}`,
      "-o",
      "json",
    ]);
    expect(plan.status, plan.stderr).to.equal(0);
    const upgrades = JSON.parse(plan.stdout.slice(plan.stdout.indexOf("{"))).availableUpgrades;
    const components = upgrades.flatMap(
      (u: { components: { name: string; currentVersion: string; newVersion: string }[] }) => u.components,
    );
    expect(components.find((c: { name: string }) => c.name === "kube-apiserver")).to.deep.include({
      currentVersion: `v${OLD}`,
      newVersion: `v${NEW}`,
    });
    // kubeadm's version policy (the preflight phase of upgrade apply): a minor down, or past kubeadm's own, never.
    for (const refused of ["v1.33.13", "v1.36.5"]) {
      const r = cp.host.run([
        kubeadm.new,
        "upgrade",
        "apply",
        "phase",
        "preflight",
        refused,
        "--yes",
        `--ignore-preflight-errors=${NOT_HERE.join(",")}`,
      ]);
      expect(r.status, `${refused}: ${r.stdout}${r.stderr}`).to.not.equal(0);
    }
    const allowed = cp.host.run([
      kubeadm.new,
      "upgrade",
      "apply",
      "phase",
      "preflight",
      `v${NEW}`,
      "--yes",
      `--ignore-preflight-errors=${NOT_HERE.join(",")}`,
    ]);
    expect(allowed.status, allowed.stdout + allowed.stderr).to.equal(0);
    expect(clusterConfiguration().kubernetesVersion).to.equal(`v${OLD}`);
  });

  it("kubeadm upgrade plan and apply cannot run on a new control-plane node: they read its Node object, which does not exist before it joins", function () {
    cp.host.must(["cp", "/etc/kubernetes/admin.conf", join(newNode, "admin.conf")]);
    for (const command of [
      ["upgrade", "plan", `v${NEW}`],
      ["upgrade", "apply", `v${NEW}`, "--yes"],
    ]) {
      const r = onNewNode([
        kubeadm.new,
        ...command,
        "--kubeconfig",
        join(newNode, "admin.conf"),
        `--ignore-preflight-errors=${NOT_HERE.join(",")}`,
      ]);
      // kubeadm's own refusal (exit 1), before any phase: this node is no Node of the cluster yet.
      expect(r.status, r.out).to.equal(1);
    }
    expect(clusterConfiguration().kubernetesVersion).to.equal(`v${OLD}`);
    // With a Node of its name, as once it has joined, the same plan runs: the Node is what it lacks.
    registerNode(cp, { name: NEW_NODE, arch: "amd64", taints: [], kubeletVersion: `v${NEW}` }, "10.0.1.11");
    cp.kubectl(["cordon", NEW_NODE]);
    const plan = onNewNode([
      kubeadm.new,
      "upgrade",
      "plan",
      `v${NEW}`,
      "--kubeconfig",
      join(newNode, "admin.conf"),
      `--ignore-preflight-errors=${[...NOT_HERE, "StaticPodManifest"].join(",")}`,
    ]);
    cp.kubectl(["delete", "node", NEW_NODE]);
    cp.kubectl(["delete", "lease", "-n", "kube-node-lease", NEW_NODE]);
    expect(plan.status, plan.out).to.equal(0);
    cp.host.must(["rm", join(newNode, "admin.conf")]);
    expect(clusterConfiguration().kubernetesVersion).to.equal(`v${OLD}`);
  });

  it(`before the upgrade step, kubeadm ${NEW}'s join would deploy the cluster's ${OLD} control plane`, function () {
    const joined = dryRunJoin();
    expect(joined.status, joined.out).to.equal(0);
    expect(podImage(joined.file("kube-apiserver.yaml"))).to.equal(`registry.k8s.io/kube-apiserver:v${OLD}`);
  });

  it(`the upgrade step of a ${NEW} node moves the cluster to ${NEW}, keeping what it was built with; while no ${NEW} control plane has joined, a ${OLD} node's moves it back`, function () {
    // The node bumps nothing yet: no change for a node of the cluster's own release.
    const same = bootstrapFunction(OLD, "upgrade_cluster");
    expect(same.status, same.out).to.equal(0);
    expect(clusterConfiguration().kubernetesVersion).to.equal(`v${OLD}`);

    const step = bootstrapFunction(NEW, "upgrade_cluster");
    expect(step.status, step.out).to.equal(0);
    const cluster = clusterConfiguration();
    expect(cluster.kubernetesVersion).to.equal(`v${NEW}`);
    expect(cluster.proxy).to.deep.equal({ disabled: true });
    // The cluster was not created again: the same objects, namespace, CA and kubelet configuration.
    expect(JSON.parse(cp.kubectl(["get", "configmap", "witness", "-o", "json"])).data).to.deep.equal({
      written: "before-the-upgrade",
    });
    expect(JSON.parse(cp.kubectl(["get", "namespace", "kube-system", "-o", "json"])).metadata.uid).to.equal(
      builtWith.uid,
    );
    expect(
      JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-public", "cluster-info", "-o", "json"])).data.kubeconfig,
    ).to.equal(builtWith.ca);
    expect(
      JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-system", "kubelet-config", "-o", "json"])).data,
    ).to.deep.equal(builtWith.kubelet);
    for (const what of [
      ["daemonset", "-n", "kube-system", "kube-proxy"],
      ["configmap", "-n", "kube-system", "kube-proxy"],
    ])
      expect(get(what).status, what.join(" ")).to.not.equal(0);

    // The move is stamped: until its node has joined or been abandoned, it may still be joining (its mirror
    // pods appear minutes after the move), and a 1.34 node booting meanwhile leaves the cluster as it is.
    const moved = Number(
      JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-system", "kubeadm-config", "-o", "json"])).metadata
        .annotations?.[UPGRADE_MOVED_ANNOTATION],
    );
    expect(Math.abs(Date.now() / 1000 - moved), "seconds since the move's stamp").to.be.lessThan(120);
    const early = bootstrapFunction(OLD, "upgrade_cluster");
    expect(early.status, early.out).to.not.equal(0);
    expect(clusterConfiguration().kubernetesVersion).to.equal(`v${NEW}`);

    // The new node then fails before it joins (no control-plane Node of 1.35 registered): once it can no
    // longer be joining (here at once), the cluster is ahead of every control plane it runs, and a 1.34 node
    // (the group's version set back) moves it back and joins.
    const back = bootstrapFunction(OLD, "upgrade_cluster", { MOVE_BACK_AFTER_SECONDS: "0" });
    expect(back.status, back.out).to.equal(0);
    expect(clusterConfiguration()).to.deep.include({ kubernetesVersion: `v${OLD}`, proxy: { disabled: true } });
    expect(JSON.parse(cp.kubectl(["get", "configmap", "witness", "-o", "json"])).data).to.deep.equal({
      written: "before-the-upgrade",
    });
    // The next 1.35 node moves it forward again.
    const again = bootstrapFunction(NEW, "upgrade_cluster");
    expect(again.status, again.out).to.equal(0);
    expect(clusterConfiguration().kubernetesVersion).to.equal(`v${NEW}`);
    // Run again, as a retried bootstrap runs it: nothing more to do.
    const version = JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-system", "kubeadm-config", "-o", "json"]))
      .metadata.resourceVersion;
    expect(bootstrapFunction(NEW, "upgrade_cluster").status).to.equal(0);
    expect(
      JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-system", "kubeadm-config", "-o", "json"])).metadata
        .resourceVersion,
    ).to.equal(version);
  });

  it(`after it, kubeadm ${NEW}'s join deploys ${NEW}'s control plane and the etcd kubeadm ${NEW} pins, with the kubelet's settings kept; once it has joined, a ${OLD} node refuses the cluster`, function () {
    // The node's own kubelet patch (bootstrap/kubelet.sh writes it in ENI mode): max pods.
    cp.host.writeFile(join(newNode, "etc-kubernetes", "patches", "kubeletconfiguration+merge.yaml"), "maxPods: 33\n");
    const joined = dryRunJoin();
    expect(joined.status, joined.out).to.equal(0);
    for (const component of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"])
      expect(podImage(joined.file(`${component}.yaml`)), component).to.equal(`registry.k8s.io/${component}:v${NEW}`);
    expect(podImage(joined.file("etcd.yaml"))).to.equal(`registry.k8s.io/etcd:${kubeadmEtcd(NEW)}-0`);
    const kubelet = parse(joined.file("config.yaml"));
    const built = parse(builtWith.kubelet.kubelet);
    expect(kubelet).to.deep.include({
      maxPods: 33,
      cgroupDriver: built.cgroupDriver,
      shutdownGracePeriod: built.shutdownGracePeriod,
    });
    expect(built).to.deep.include({ cgroupDriver: "systemd" });
    // What the joined node runs, for the upgrade's last step: its manifests, its kubelet's flags, its Node and
    // mirror pods, its admin.conf.
    cp.host.writeFile(join(newNode, "var-lib-kubelet", "kubeadm-flags.env"), joined.file("kubeadm-flags.env"));
    for (const pod of STATIC_PODS)
      cp.host.writeFile(join(newNode, "etc-kubernetes", "manifests", `${pod}.yaml`), joined.file(`${pod}.yaml`));
    cp.host.must(["cp", "/etc/kubernetes/admin.conf", join(newNode, "etc-kubernetes", "admin.conf")]);
    // Mid-join, its kubelet runs the new static pods before kubeadm labels its Node: a 1.34 node already
    // refuses the cluster.
    postMirrorPods(
      cp,
      NEW_NODE,
      STATIC_PODS.map((p) => joined.file(`${p}.yaml`)),
    );
    // The move's stamp aside (MOVE_BACK_AFTER_SECONDS=0): its mirror pods alone hold the 1.34 node off.
    const midJoin = bootstrapFunction(OLD, "upgrade_cluster", { MOVE_BACK_AFTER_SECONDS: "0" });
    expect(midJoin.status, midJoin.out).to.not.equal(0);
    expect(clusterConfiguration().kubernetesVersion).to.equal(`v${NEW}`);
    registerNode(
      cp,
      {
        name: NEW_NODE,
        arch: "amd64",
        taints: [],
        kubeletVersion: `v${NEW}`,
        labels: { "node-role.kubernetes.io/control-plane": "" },
      },
      "10.0.1.11",
    );
    // A control plane of 1.35 has joined: the upgrade only goes forward now. A 1.34 node refuses, and changes
    // nothing.
    const refused = bootstrapFunction(OLD, "upgrade_cluster", { MOVE_BACK_AFTER_SECONDS: "0" });
    expect(refused.status, refused.out).to.not.equal(0);
    expect(clusterConfiguration().kubernetesVersion).to.equal(`v${NEW}`);
  });

  it("kubeadm's cluster-wide upgrade phases and addons follow only once every control-plane node runs the new release, and kube-proxy stays away", function () {
    // One of the RBAC rules kubeadm's bootstrap-token phase (re)writes, gone: whether that phase has run. And
    // the bootstrap tokens' auto-approval, which a node's bootstrap deletes after the join (node-credentials.sh).
    const getNodes = ["clusterrolebinding", "kubeadm:get-nodes"];
    const tokensApproved = ["clusterrolebinding", "kubeadm:node-autoapprove-bootstrap"];
    cp.kubectl(["delete", ...getNodes]);
    cp.kubectl(["delete", ...tokensApproved, "--ignore-not-found"]);
    // The old node still runs 1.34's API server: nothing runs.
    const early = bootstrapFunction(NEW, "finish_upgrade");
    expect(early.status, early.out).to.equal(0);
    expect(image("deployment", "coredns")).to.equal(builtWith.coredns);
    expect(get(getNodes).status, "the bootstrap-token phase's RBAC").to.not.equal(0);
    // The old node has left (its mirror pods go with its Node).
    for (const pod of STATIC_PODS)
      cp.kubectl(["delete", "pod", "-n", "kube-system", `${pod}-${NODE_NAME}`, "--grace-period=0", "--force"]);
    const done = bootstrapFunction(NEW, "finish_upgrade");
    expect(done.status, done.out).to.equal(0);
    expect(get(getNodes).status, "the bootstrap-token phase's RBAC").to.equal(0);
    expect(get(tokensApproved).status, "the bootstrap tokens' auto-approval").to.not.equal(0);
    expect(
      JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-system", "kubeadm-config", "-o", "json"])).metadata
        .annotations[UPGRADE_FINISHED_ANNOTATION],
      "the upgrade's finish recorded",
    ).to.equal(NEW);
    const coredns = cp.host
      .must([kubeadm.new, "config", "images", "list", "--kubernetes-version", `v${NEW}`])
      .split("\n")
      .find((i) => i.includes("/coredns:"));
    expect(image("deployment", "coredns")).to.equal(coredns).and.not.equal(builtWith.coredns);
    for (const what of [
      ["daemonset", "-n", "kube-system", "kube-proxy"],
      ["configmap", "-n", "kube-system", "kube-proxy"],
    ])
      expect(get(what).status, what.join(" ")).to.not.equal(0);
    // kubeadm 1.35 wrote the kubelet configuration again, with the program's settings kept.
    const kubelet = parse(
      JSON.parse(cp.kubectl(["get", "configmap", "-n", "kube-system", "kubelet-config", "-o", "json"])).data.kubelet,
    );
    const built = parse(builtWith.kubelet.kubelet);
    expect(kubelet).to.deep.include({
      cgroupDriver: built.cgroupDriver,
      shutdownGracePeriod: built.shutdownGracePeriod,
    });
    // Current now: the next run changes nothing.
    const generation = JSON.parse(cp.kubectl(["get", "deployment", "-n", "kube-system", "coredns", "-o", "json"]))
      .metadata.generation;
    cp.kubectl(["delete", ...getNodes]);
    expect(bootstrapFunction(NEW, "finish_upgrade").status).to.equal(0);
    expect(
      JSON.parse(cp.kubectl(["get", "deployment", "-n", "kube-system", "coredns", "-o", "json"])).metadata.generation,
    ).to.equal(generation);
    expect(get(getNodes).status, "the bootstrap-token phase's RBAC").to.not.equal(0);
  });
});
