// addons.applyFrom: controlPlane. The script control-plane nodes run, executed by a real shell with
// stand-ins for kubectl and sleep, and the resources the program declares instead of the provider's.
import { expect } from "chai";
import { execFileSync, spawnSync } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { parseAllDocuments } from "yaml";
import { renderCiliumManifests } from "../../components/cilium/ciliumManifests";
import { applyScript, FIELD_MANAGER } from "../../components/k8s/applyScript";
import { modulePath } from "../../components/nodes/bootstrapModuleFiles";
import type { BootstrapModule } from "../../components/nodes/bootstrapSteps";
import { NODE_ROLE_FILE } from "../../components/nodes/nodeFacts";
import { factsHeader } from "../../components/nodes/shellHeader";
import { TIMEOUTS } from "../../components/timeouts";
import { requireDebianTool } from "../debianTools";
import type { K8sObject } from "../../components/k8s/object";
import { toRuntimeConfig } from "../../cli/plan/stackConfig";
import { readRawConfig } from "../../config/read";
import type { ClusterSpec } from "../../config/types";
import { validateConfig } from "../../components/clusterConfigValidation";
import { specWith } from "../fixtures";
import { diffPlans } from "../../cli/plan/diff";
import { configWith, declaredBy, inputs, named, ofType, planWith } from "../planHelpers";

const objectsOf = (endpoint: string, spec: ClusterSpec = specWith({})): K8sObject[] => {
  const m = renderCiliumManifests(spec, endpoint);
  return [...m.foundation, ...m.workloads];
};
const parsedYaml = (text: string) => parseAllDocuments(text).map((d) => d.toJSON());

/** The bootstrap's own first step (role.sh), run under `root`: it writes the marker the script reads. */
function recordRole(root: string, role: "control-plane" | "node") {
  const source = (m: BootstrapModule) => `source ${JSON.stringify(modulePath(m))}`;
  const script = `set -euo pipefail\n${factsHeader()}${source("lib")}; ${source("role")}; record_node_role`;
  execFileSync("bash", ["-c", script], {
    env: { ...process.env, BOOTSTRAP_ROOT: root, ROLE: role },
  });
}

/**
 * Runs the script with `sh`; kubectl answers /readyz after `readyAfter` tries and records what it applies.
 * `initializing`: a control-plane node in the middle of `kubeadm init`, which has written kubelet.conf
 * and admin.conf but not yet the API server's manifest.
 */
function run(node: "control-plane" | "initializing" | "worker" | "fresh", readyAfter: number) {
  const dir = mkdtempSync(join(tmpdir(), "apply-"));
  const bin = join(dir, "bin");
  const kube = join(dir, "kubernetes");
  mkdirSync(bin);
  mkdirSync(join(kube, "manifests"), { recursive: true });
  if (node === "control-plane" || node === "initializing") {
    recordRole(dir, "control-plane");
    writeFileSync(join(kube, "admin.conf"), "admin");
  }
  if (node === "control-plane") writeFileSync(join(kube, "manifests", "kube-apiserver.yaml"), "pod");
  if (node === "initializing") writeFileSync(join(kube, "kubelet.conf"), "kubelet");
  if (node === "worker") {
    recordRole(dir, "node");
    writeFileSync(join(kube, "kubelet.conf"), "kubelet");
  }
  const stub = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  stub(
    "kubectl",
    [
      `if [ "$1" = get ]; then n=$(cat "${dir}/tries" 2>/dev/null || echo 0); echo $((n + 1)) > "${dir}/tries";`,
      `  [ "$n" -ge ${readyAfter} ]; exit; fi`,
      `echo "$KUBECONFIG $*" > "${dir}/args"; cat > "${dir}/applied"`,
    ].join("\n"),
  );
  stub("sleep", `echo "$1" >> "${dir}/slept"`);
  const script = join(dir, "apply.sh");
  writeFileSync(script, applyScript("cilium", objectsOf("api.internal.example")));
  const result = spawnSync("sh", [script], {
    env: { PATH: `${bin}:/usr/bin:/bin`, KUBERNETES_DIR: kube, NODE_ROLE_FILE: join(dir, NODE_ROLE_FILE) },
    encoding: "utf8",
  });
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), "utf8") : undefined);
  return {
    status: result.status,
    stderr: result.stderr,
    args: read("args"),
    applied: read("applied"),
    /** Seconds the script slept waiting for the API. */
    slept: (read("slept") ?? "")
      .split("\n")
      .filter(Boolean)
      .map(Number)
      .reduce((a, b) => a + b, 0),
  };
}

describe("add-ons applied from the control plane: the node's script", () => {
  it("passes shellcheck as a POSIX sh script", function () {
    requireDebianTool(this, "shellcheck", "shellcheck");
    const file = join(mkdtempSync(join(tmpdir(), "apply-")), "apply.sh");
    writeFileSync(file, applyScript("cilium", objectsOf("api.internal.example")));
    expect(() => execFileSync("shellcheck", ["-s", "sh", file], { encoding: "utf8" })).not.to.throw();
  });

  it("waits for the local API, then server-side applies exactly the rendered objects with admin.conf", () => {
    const r = run("control-plane", 3);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.args).to.match(
      new RegExp(`/admin\\.conf apply --server-side --force-conflicts --field-manager=${FIELD_MANAGER} -f -`),
    );
    expect(parsedYaml(r.applied!)).to.deep.equal(objectsOf("api.internal.example"));
  });

  it("applies on a control-plane node still in `kubeadm init` (kubelet.conf, no API server manifest yet)", () => {
    const r = run("initializing", 3);
    expect(r.status, r.stderr).to.equal(0);
    expect(parsedYaml(r.applied!)).to.deep.equal(objectsOf("api.internal.example"));
  });

  it("never calls a node without a recorded role a worker: it waits for its API, and fails when none comes", () => {
    const r = run("fresh", 2);
    expect(r.status, r.stderr).to.equal(1);
    expect(r.slept).to.equal(TIMEOUTS.addons.localApiWaitSeconds);
    expect(r.applied).to.equal(undefined);
  });

  it("leaves a node the bootstrap recorded as a worker alone", () => {
    const r = run("worker", 0);
    expect(r.status).to.equal(0);
    expect(r.slept).to.equal(0);
    expect(r.applied).to.equal(undefined);
  });

  it("fails when the local API never becomes ready within its wait", () => {
    const r = run("control-plane", 1000);
    expect(r.status).to.equal(1);
    expect(r.slept).to.equal(TIMEOUTS.addons.localApiWaitSeconds);
    expect(r.applied).to.equal(undefined);
  });
});

describe("add-ons applied from the control plane: the plan", () => {
  const CONTROL_PLANE = { "addons.applyFrom": "controlPlane", "api.loadBalancer": "internal" };

  it("declares no Kubernetes provider and no objects; Cilium is an SSM document and association", async () => {
    const plan = await planWith({}, configWith(CONTROL_PLANE));
    expect(plan.resources.filter((r) => /^(kubernetes:|pulumi:providers:kubernetes)/.test(r.type))).to.deep.equal([]);
    const children = declaredBy(plan, "cilium-cluster:cilium:CiliumAddon", "cilium");
    expect(children.map((c) => c.type).sort()).to.deep.equal([
      "aws:ssm/association:Association",
      "aws:ssm/document:Document",
    ]);

    const document = inputs(named(plan, "aws:ssm/document:Document", "cilium-addon"));
    expect(document).to.include({
      documentType: "Command",
      documentFormat: "JSON",
      name: "dev.k8s.local-cilium-addon",
    });
    expect(Buffer.byteLength(document.content)).to.be.lessThan(64 * 1024, "SSM's document size limit");
    const step = JSON.parse(document.content).mainSteps[0];
    expect(step.action).to.equal("aws:runShellScript");
    const script = (step.inputs.runCommand as string[]).join("\n");
    // Agents reach the API by its stable internal name.
    const endpoint = "api.internal.dev.k8s.local";
    expect(script).to.contain(endpoint);
    const yaml = script.slice(
      script.indexOf("\n", script.indexOf("kubectl apply")) + 1,
      script.lastIndexOf("\nCILIUM"),
    );
    const { raw, region } = readRawConfig(toRuntimeConfig(configWith(CONTROL_PLANE)));
    expect(parsedYaml(yaml)).to.deep.equal(objectsOf(endpoint, validateConfig(raw, region).spec));

    const association = named(plan, "aws:ssm/association:Association", "cilium-addon");
    const controlPlaneGroup = named(plan, "aws:autoscaling/group:Group", "control-plane-us-east-1a-group");
    expect(inputs(association)).to.deep.include({
      // Only the control plane's instances: EC2 Auto Scaling tags each instance with its group's name.
      targets: [{ key: "tag:aws:autoscaling:groupName", values: [inputs(controlPlaneGroup).name] }],
      waitForSuccessTimeoutSeconds: 1800,
    });
    expect(inputs(association).tags).to.deep.equal(document.tags);
    expect(inputs(association).tags).to.include({ KubernetesCluster: "dev.k8s.local" });
    expect(association.dependencies).to.include.members([controlPlaneGroup.urn]);
  });

  it("grants nothing beyond every role's Session Manager statement (no AWS managed policy)", async () => {
    const plan = await planWith({}, configWith(CONTROL_PLANE));
    const own = new Set(
      ofType(plan, "aws:iam/policy:Policy").map((p) => `arn:aws:iam::000000000000:policy/${inputs(p).name}`),
    );
    const attached = ofType(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").map((a) => inputs(a).policyArn);
    expect(attached.length).to.be.greaterThan(0);
    expect(attached.filter((arn) => !own.has(arn))).to.deep.equal([]);
  });

  it("replaces the association (which the provider waits for) whenever the document gets a new version", async () => {
    const plan = await planWith({}, configWith(CONTROL_PLANE));
    const association = named(plan, "aws:ssm/association:Association", "cilium-addon");
    expect(association.replaceOnChanges).to.deep.equal(["documentVersion"]);
    expect(association.deleteBeforeReplace).to.equal(true);
    const changed = await planWith(
      {},
      configWith({ ...CONTROL_PLANE, "networking.cilium.enableNodePort": "true", "kubeProxy.enabled": "false" }),
    );
    const diff = diffPlans(plan, changed);
    expect(diff.changes.find((c) => c.name === "cilium-addon" && c.type.endsWith("Association"))).to.include({
      op: "replace",
    });
  });

  it("does not warn that this machine must reach the API", async () => {
    const limited = await planWith({}, configWith({ "api.loadBalancer": "internal" }));
    expect(limited.warnings.join("\n")).to.contain("pulumi up applies the add-ons from the machine running it");
    expect((await planWith({}, configWith(CONTROL_PLANE))).warnings).to.deep.equal([]);
  });
});
