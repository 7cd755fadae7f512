// The program under the mock runtime: a bad config stops it before any resource is declared.
import { expect } from "chai";
import { runPlan } from "../../cli/plan/run";
import { errorKey } from "../../config/validation/fieldErrors";
import { ConfigValidationError, formatWithFix } from "../../config/validation/report";
import { configWith } from "../planHelpers";
import program from "../../index";
import * as pulumi from "@pulumi/pulumi";

describe("program", () => {
  it("registers no resource (beyond the stack) for a bad config, and reports every problem", async () => {
    const plan = await runPlan(
      configWith({ "networking.cilium.ipam": "foo", "controlPlane.count": "2", "networking.cilium.ipma": "eni" }),
      "bad",
    );
    expect(plan.resources.map((r) => r.type)).to.deep.equal(["pulumi:pulumi:Stack"]);
    expect(plan.errors?.map(errorKey)).to.have.members([
      "Unsupported value::networking.cilium.ipam",
      "Unsupported value::controlPlane.count",
      "Forbidden::networking.cilium.ipma",
    ]);
  });

  it("fails with one RunError that lists every error with its fix, and no stack trace", async () => {
    await pulumi.runtime.setMocks(
      { newResource: () => ({ id: "x", state: {} }), call: () => ({}) },
      "cilium-cluster",
      "t",
      true,
      "organization",
    );
    pulumi.runtime.setAllConfig({ "aws:region": "us-east-1", "cilium-cluster:clusterName": "Bad Name" }, []);
    let error: unknown;
    try {
      await program();
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigValidationError);
    expect(pulumi.RunError.isInstance(error)).to.equal(true);
    const message = (error as Error).message.split("\n");
    expect(message[0]).to.equal("Invalid cluster configuration (4 errors):");
    expect(message.slice(1)).to.have.members([
      "  network.availabilityZones: Required value: this key has no default (fix: pulumi config set --path 'network.availabilityZones[0]' <value>)",
      "  clusterName: Invalid value: \"Bad Name\": must be a lowercase DNS name of at most 63 characters, such as dev.k8s.local (fix: pulumi config set --path 'clusterName' <value>)",
      "  api.access: Required value: the public API load balancer admits no one by default: add your own address (0.0.0.0/0 admits the whole internet and must be written out) (fix: pulumi config set --path 'api.access[0]' '203.0.113.7/32')",
      "  controlPlane.acceptSingleNodeLoss: Required value: one control-plane node loses the etcd writes of up to 15 minutes (the last snapshot's age) when its instance is lost unplanned: set this to accept that, or set controlPlane.count to 3 (fix: pulumi config set --path 'controlPlane.acceptSingleNodeLoss' 'true')",
    ]);
  });

  it("refuses a downgrade or a skipped minor against the version the stack last applied, before declaring anything", async () => {
    // The stack's last update recorded 1.35.4 (its output kubernetesVersion, which the program reads back).
    const deployed = { kubernetesVersion: "1.35.4" };
    for (const [version, fix] of [
      ["1.34.12", "'1.35.4'"],
      ["1.35.3", "'1.35.4'"],
    ]) {
      const plan = await runPlan(configWith({ kubernetesVersion: version }), "dev", true, deployed);
      expect(
        plan.resources.map((r) => r.type),
        version,
      ).to.deep.equal(["pulumi:pulumi:Stack"]);
      expect(plan.errors?.map(formatWithFix), version).to.have.length(1);
      expect(formatWithFix(plan.errors![0])).to.match(
        new RegExp(
          `^kubernetesVersion: Invalid value: "${version}": the cluster runs 1\\.35\\.4 .*never downgraded in place.*${fix}\\)$`,
        ),
      );
    }
    // With the config's other errors, all at once.
    const skip = await runPlan(configWith({ kubernetesVersion: "1.36.5", "controlPlane.count": "2" }), "dev", true, {
      kubernetesVersion: "1.34.12",
    });
    expect(skip.resources).to.have.length(1);
    expect(skip.errors?.map(errorKey)).to.have.members([
      "Invalid value::kubernetesVersion",
      "Unsupported value::controlPlane.count",
    ]);
    expect(skip.errors!.map(formatWithFix).join("\n")).to.contain("one minor version at a time");
    // The same versions on a stack never deployed, one minor up, and a patch up: planned.
    const planned: [string, string | undefined][] = [
      ["1.34.12", undefined],
      ["1.35.4", "1.34.12"],
      ["1.35.8", "1.35.4"],
    ];
    for (const [version, before] of planned) {
      const deployedBefore = before ? { kubernetesVersion: before } : {};
      const plan = await runPlan(configWith({ kubernetesVersion: version }), "dev", true, deployedBefore);
      expect(plan.errors, `${before} → ${version}`).to.equal(undefined);
      expect(plan.outputs.kubernetesVersion).to.equal(version);
    }
  });

  it("validates the dev stack", async () => {
    const plan = await runPlan(configWith(), "dev");
    expect(plan.errors).to.equal(undefined);
  });
});
