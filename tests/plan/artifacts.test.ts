// The --out files keep each script a node runs as text, and give back exactly the inputs the plan declared.
import { expect } from "chai";
import { join } from "path";
import { planFiles, resourcesFromFiles } from "../../cli/plan/artifacts";
import { PROJECT_DIR } from "../../cli/plan/examples";
import { runPlan } from "../../cli/plan/run";
import { loadStackConfig } from "../../cli/plan/stackConfig";

const SCRIPTED = ["aws:ec2/launchTemplate:LaunchTemplate", "aws:ssm/document:Document"];

describe("plan files", () => {
  it("record scripts by digest and put back the inputs the plan declared, refusing an edited script", async () => {
    // internal-api applies its add-on from a control-plane node: an SSM document beside the launch templates.
    const config = loadStackConfig(
      join(PROJECT_DIR, "Pulumi.yaml"),
      join(PROJECT_DIR, "examples", "Pulumi.internal-api.yaml"),
    );
    const plan = await runPlan(config, "internal-api");
    const files = planFiles(plan);
    const recorded = JSON.parse(files.get("resources.json")!) as { type: string; inputs: unknown }[];
    const scripted = plan.resources.filter((r) => SCRIPTED.includes(r.type));
    expect(new Set(scripted.map((r) => r.type)).size).to.equal(2);
    for (const r of recorded.filter((r) => SCRIPTED.includes(r.type))) {
      expect(JSON.stringify(r.inputs)).to.match(/sha256:[0-9a-f]{64}/);
      expect(JSON.stringify(r.inputs)).not.to.contain("set -e");
    }

    const back = resourcesFromFiles((name) => files.get(name)!);
    for (const r of scripted) expect(back.find((b) => b.urn === r.urn)!.inputs).to.deep.equal(r.inputs);

    const edited = new Map(files).set("ssm/cilium-addon.sh", `${files.get("ssm/cilium-addon.sh")}echo extra\n`);
    expect(() => resourcesFromFiles((name) => edited.get(name)!)).to.throw(
      "ssm/cilium-addon.sh does not match the digest of cilium-addon in resources.json",
    );
  });

  it("record each Kubernetes object once, by its file and digest, and put back the object the plan declared", async () => {
    const plan = await runPlan(
      loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), join(PROJECT_DIR, "Pulumi.dev.yaml")),
      "dev",
    );
    const files = planFiles(plan);
    const recorded = JSON.parse(files.get("resources.json")!) as { type: string; name: string; inputs: unknown }[];
    const objects = recorded.filter((r) => r.type.startsWith("kubernetes:") && !r.type.startsWith("kubernetes:index"));
    expect(objects.length).to.be.greaterThan(20);
    for (const r of objects) {
      expect(Object.keys(r.inputs as object), r.name).to.deep.equal(["digest", "file"]);
      expect(files.has((r.inputs as { file: string }).file), r.name).to.equal(true);
    }
    // Cilium's images are in the objects' YAML files, and nowhere in resources.json.
    expect(files.get("kubernetes/daemonset-kube-system-cilium.yaml")).to.contain("quay.io/cilium/");
    expect(files.get("resources.json")).not.to.contain("quay.io/cilium/");
    const back = resourcesFromFiles((name) => files.get(name)!);
    for (const r of plan.resources) expect(back.find((b) => b.urn === r.urn)!.inputs, r.name).to.deep.equal(r.inputs);

    const configMap = "kubernetes/configmap-kube-system-cilium-config.yaml";
    const edited = new Map(files).set(configMap, files.get(configMap)!.replace("ipam: eni", "ipam: kubernetes"));
    expect(edited.get(configMap)).not.to.equal(files.get(configMap));
    expect(() => resourcesFromFiles((name) => edited.get(name)!)).to.throw(`${configMap} does not match the digest of`);
  });
});
