// addons.applyFrom: controlPlane. The script control-plane nodes run, executed by a real shell with
// stand-ins for kubectl and sleep, and the resources the program declares instead of the provider's.
import { expect } from "chai";
import { execFileSync, spawnSync } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { parseAllDocuments } from "yaml";
import { renderCiliumManifests } from "../../components/cilium/manifests";
import { applyScript, FIELD_MANAGER } from "../../components/k8s/applyScript";
import { requireDebianTool } from "../debianTools";
import type { K8sObject } from "../../components/k8s/object";
import { toRuntimeConfig } from "../../plan/stackConfig";
import { readRawConfig } from "../../spec/read";
import type { ClusterSpec } from "../../spec/types";
import { validateConfig } from "../../spec/validation";
import { specWith } from "../fixtures";
import { configWith, declaredBy, inputs, named, ofType, planWith } from "../planHelpers";

const objectsOf = (endpoint: string, spec: ClusterSpec = specWith({})): K8sObject[] => {
  const m = renderCiliumManifests(spec, endpoint);
  return [...m.foundation, ...m.workloads];
};
const parsedYaml = (text: string) => parseAllDocuments(text).map((d) => d.toJSON());

/** Runs the script with `sh`; kubectl answers /readyz after `readyAfter` tries and records what it applies. */
function run(node: "control-plane" | "worker" | "fresh", readyAfter: number) {
  const dir = mkdtempSync(join(tmpdir(), "apply-"));
  const bin = join(dir, "bin");
  const kube = join(dir, "kubernetes");
  mkdirSync(bin);
  mkdirSync(join(kube, "manifests"), { recursive: true });
  if (node === "control-plane") {
    writeFileSync(join(kube, "admin.conf"), "admin");
    writeFileSync(join(kube, "manifests", "kube-apiserver.yaml"), "pod");
  }
  if (node === "worker") writeFileSync(join(kube, "kubelet.conf"), "kubelet");
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
  stub("sleep", "exit 0");
  const script = join(dir, "apply.sh");
  writeFileSync(script, applyScript("cilium", objectsOf("api.internal.example")));
  const result = spawnSync("sh", [script], {
    env: { PATH: `${bin}:/usr/bin:/bin`, KUBERNETES_DIR: kube },
    encoding: "utf8",
  });
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), "utf8") : undefined);
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    args: read("args"),
    applied: read("applied"),
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

  it("leaves a worker alone", () => {
    const r = run("worker", 0);
    expect(r.status).to.equal(0);
    expect(r.stdout).to.contain("not a control-plane node");
    expect(r.applied).to.equal(undefined);
  });

  it("fails, saying so, when the local API never becomes ready", () => {
    const r = run("control-plane", 1000);
    expect(r.status).to.equal(1);
    expect(r.stderr).to.contain("did not become ready in 25 minutes");
    expect(r.applied).to.equal(undefined);
  });
});

describe("add-ons applied from the control plane: the plan", () => {
  const CONTROL_PLANE = { "addons.applyFrom": "controlPlane", "api.loadBalancer": "internal" };

  it("declares no Kubernetes provider, no objects and no API wait; Cilium is an SSM document and association", async () => {
    const plan = await planWith({}, configWith(CONTROL_PLANE));
    expect(plan.resources.filter((r) => /^(kubernetes:|pulumi:providers:kubernetes)/.test(r.type))).to.deep.equal([]);
    // The only waits are the control plane's refresh waits, and they do not reach the API either.
    const waits = ofType(plan, "pulumi-nodejs:dynamic:Resource");
    expect(waits.map((w) => w.name)).to.deep.equal(["control-plane-us-east-1a-healthy"]);
    expect(inputs(waits[0]).readyUrl).to.equal("");
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
    expect(inputs(association)).to.deep.include({
      targets: [{ key: "tag:kubernetes.io/cluster/dev.k8s.local", values: ["owned"] }],
      waitForSuccessTimeoutSeconds: 1800,
    });
    const attachment = named(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment", "control-plane-ssm");
    expect(inputs(attachment).policyArn).to.equal("arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore");
    expect(association.dependencies).to.include.members([
      attachment.urn,
      named(plan, "aws:autoscaling/group:Group", "control-plane-us-east-1a-group").urn,
    ]);
  });

  it("does not warn that this machine must reach the API", async () => {
    const warnings: string[] = [];
    const original = console.warn;
    console.warn = (text: string) => warnings.push(text);
    try {
      await planWith({}, configWith(CONTROL_PLANE));
    } finally {
      console.warn = original;
    }
    expect(warnings).to.deep.equal([]);
  });
});
