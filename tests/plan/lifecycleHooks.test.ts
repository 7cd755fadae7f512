// The groups' lifecycle hooks as resources of their own: every group of every example has them, and a hook
// changed since its group was created is updated as its own resource, never by replacing the group.
import { expect } from "chai";
import { join } from "path";
import { diffPlans } from "../../cli/plan/diff";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { forcesReplacement } from "../../cli/plan/replaceKeys";
import { Plan, PlannedResource, runPlan } from "../../cli/plan/run";
import { loadStackConfig } from "../../cli/plan/stackConfig";
import * as pulumi from "@pulumi/pulumi";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { NodeLaunchTemplate } from "../../components/nodes/nodeLaunchTemplate";
import { TIMEOUTS } from "../../components/timeouts";
import { planMocks } from "../../cli/plan/mocks";
import { specWith } from "../fixtures";
import { inputs, ofType } from "../planHelpers";

const ASG = "aws:autoscaling/group:Group";
const HOOK = "aws:autoscaling/lifecycleHook:LifecycleHook";

/**
 * The hooks every group must have, from docs/nodes.md and docs/operations.md: each times out at its deadline
 * in the timeouts table (whose values timeouts.test.ts checks against each other).
 */
function expectedHooks(controlPlane: boolean) {
  const launch = {
    name: "cilium-cluster-joined",
    lifecycleTransition: "autoscaling:EC2_INSTANCE_LAUNCHING",
    defaultResult: "ABANDON",
    heartbeatTimeout: TIMEOUTS.nodes.joinDeadlineSeconds[controlPlane ? "control-plane" : "node"],
  };
  const drain = {
    name: "nth-drain",
    lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
    defaultResult: "CONTINUE",
    heartbeatTimeout: TIMEOUTS.drain.hookHeartbeatSeconds,
  };
  const etcd = {
    name: "etcd-member",
    lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
    defaultResult: "CONTINUE",
    heartbeatTimeout: TIMEOUTS.etcd.leaveHeartbeatSeconds,
  };
  return controlPlane ? [launch, drain, etcd] : [launch, drain];
}

const planOf = (name: string): Promise<Plan> => {
  const example = examples().find((e) => e.name === name)!;
  return runPlan(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file), example.name);
};

/** The hook resources of a group: siblings under its NodeLaunchTemplate that name the group, in the order of its hooks. */
const hooksOf = (plan: Plan, asg: PlannedResource) => {
  const order = (inputs(asg).initialLifecycleHooks as { name: string }[]).map((h) => h.name);
  return ofType(plan, HOOK)
    .filter((h) => h.parent === asg.parent && inputs(h).autoscalingGroupName === inputs(asg).name)
    .sort((a, b) => order.indexOf(inputs(a).name) - order.indexOf(inputs(b).name));
};

const spec = (h: Record<string, unknown>) => ({
  name: h.name,
  lifecycleTransition: h.lifecycleTransition,
  defaultResult: h.defaultResult,
  heartbeatTimeout: h.heartbeatTimeout,
});

describe("lifecycle hooks as resources", function () {
  this.timeout(120000);

  it("every group of every example has its hooks as resources, also in the group's initial hooks", async () => {
    for (const example of examples()) {
      const plan = await planOf(example.name);
      const groups = ofType(plan, ASG);
      expect(groups.length, example.name).to.be.greaterThan(1);
      for (const asg of groups) {
        const where = `${example.name} ${asg.name}`;
        const controlPlane = asg.name.startsWith("control-plane-");
        const hooks = hooksOf(plan, asg);
        expect(
          hooks.map((h) => spec(inputs(h))),
          where,
        ).to.deep.equal(expectedHooks(controlPlane));
        // Named by group and hook, deleted with the group (which drains its instances through them).
        const group = asg.name.replace(/-group$/, "");
        expect(
          hooks.map((h) => h.name),
          where,
        ).to.deep.equal(expectedHooks(controlPlane).map((e) => `${group}-${e.name}`));
        for (const h of hooks) expect(h.deletedWith, where).to.equal(asg.urn);
        // A new group's first instances launch with them; later changes never touch the group for them.
        expect(inputs(asg).initialLifecycleHooks, where).to.deep.equal(expectedHooks(controlPlane));
        expect(asg.ignoreChanges, where).to.include("initialLifecycleHooks");
      }
      expect(ofType(plan, HOOK), example.name).to.have.length(
        groups.reduce((n, g) => n + expectedHooks(g.name.startsWith("control-plane-")).length, 0),
      );
    }
  });

  it("a group is in place, for the wait on its instances (its member wait), only once its hooks are", async () => {
    const spec = specWith({});
    const [controlPlane] = instanceGroups(spec);
    const mocks = planMocks(spec.region, spec.network.availabilityZones);
    const created: string[] = [];
    // As pulumi up, where each resource's outputs come once the engine has created it: the hooks slowly.
    await pulumi.runtime.setMocks(
      {
        ...mocks,
        newResource: async (args) => {
          if (args.type === HOOK) await new Promise((r) => setTimeout(r, 300));
          created.push(args.type);
          return mocks.newResource(args);
        },
      },
      "project",
      "stack",
      false,
    );
    const template = new NodeLaunchTemplate(controlPlane.name, {
      spec,
      group: controlPlane,
      subnetIds: spec.network.availabilityZones.map((z) => `subnet-${z}`),
      securityGroupId: "sg-1",
      instanceProfileName: "profile",
      api: { internal: "api.internal.example", public: "api.example", caParameter: "/cluster-ca" },
      bootstrap: { bucket: "bootstrap-bucket", ready: [] },
      apiTargetGroupArns: [],
      state: {
        initRecord: "/record",
        restoreRequest: "/restore",
        backupBucket: "bucket",
        encryptionKeys: "/keys",
        sharedPki: "/pki/",
        adminRoleArn: "arn:aws:iam::000000000000:role/admins.dev.k8s.local",
      },
      launchAfter: [],
    });
    const name = await new Promise<string>((resolve) => template.groupInPlace.apply(resolve));
    expect(name).to.equal(`${controlPlane.name}.${spec.clusterName}`);
    expect(created.filter((t) => t === HOOK)).to.have.length(expectedHooks(true).length);
  });

  it("a hook changed since its group was created is updated as its own resource; the group is never replaced", async () => {
    const ha = await planOf("ha");
    // The stack as created with another heartbeat: the groups' initial hooks and the hook resources had it.
    const older = (h: Record<string, unknown>) => ({ ...h, heartbeatTimeout: Number(h.heartbeatTimeout) + 60 });
    const before: Plan = {
      ...ha,
      resources: ha.resources.map((r) => {
        if (r.type === HOOK) return { ...r, inputs: older(inputs(r)) };
        if (r.type !== ASG) return r;
        const initial = (inputs(r).initialLifecycleHooks as Record<string, unknown>[] | undefined) ?? [];
        return { ...r, inputs: { ...inputs(r), initialLifecycleHooks: initial.map(older) } };
      }),
    };
    const diff = diffPlans(before, ha);
    const groups = diff.changes.filter((c) => c.type === ASG);
    expect(groups.map((c) => c.op)).to.deep.equal([]);
    const hooks = diff.changes.filter((c) => c.type === HOOK);
    expect(hooks.map((c) => c.op)).to.deep.equal(Array(ofType(ha, HOOK).length).fill("update"));
    // What the group's ignoreChanges is there for: the provider replaces a group whose initial hooks change.
    expect(forcesReplacement(ASG, "initialLifecycleHooks[0].heartbeatTimeout")).to.equal(true);
    const unignored = diffPlans(before, {
      ...ha,
      resources: ha.resources.map((r) => (r.type === ASG ? { ...r, ignoreChanges: [] } : r)),
    });
    expect(unignored.changes.filter((c) => c.type === ASG).map((c) => c.op)).to.deep.equal(
      Array(ofType(ha, ASG).length).fill("replace"),
    );
  });
});
