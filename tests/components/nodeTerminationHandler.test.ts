// The drain: aws-node-termination-handler's objects (schema, placement, what it treats as the cluster's),
// its queue and EventBridge rules (what reaches the queue, and what does not), and what each component
// declares (its children only).
import { expect } from "chai";
import { join } from "path";
import { interruptionRules, queueName, queuePolicy } from "../../components/drain/nodeTerminationHandlerEvents";
import { renderNodeTerminationHandlerManifests } from "../../components/drain/nodeTerminationHandlerManifests";
import type { K8sObject } from "../../components/k8s/object";
import { DRAIN_LIFECYCLE_HOOK, ETCD_LIFECYCLE_HOOK } from "../../components/nodes/lifecycleHooks";
import { TIMEOUTS } from "../../components/timeouts";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../components/clusterConfigValidation";
import { MOCK_ACCOUNT } from "../../cli/plan/mocks";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import type { Plan } from "../../cli/plan/run";
import { loadStackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { specWith } from "../fixtures";
import { validateAgainstSchema } from "../k8sSchemas";
import { declaredBy, inputs, ofType, planWith } from "../planHelpers";
import { NODE_TERMINATION_HANDLER } from "../../components/nodes/nodeFacts";

const ASG = "aws:autoscaling/group:Group";
const QUEUE_URL = `https://sqs.us-east-1.amazonaws.com/000000000000/${queueName("dev.k8s.local")}`;
const objects = (spec = specWith({}), url = QUEUE_URL) => {
  const r = renderNodeTerminationHandlerManifests(spec, url);
  return [...r.foundation, ...r.workloads];
};
interface Container {
  env: { name: string; value?: string }[];
}
interface PodSpec {
  nodeSelector: Record<string, string>;
  hostNetwork?: boolean;
  tolerations: { key: string }[];
  containers: Container[];
}
const deploymentOf = (all: K8sObject[]) =>
  all.find((o) => o.kind === "Deployment")!.spec as { replicas: number; template: { spec: PodSpec } };
const envOf = (all: K8sObject[]) =>
  Object.fromEntries(deploymentOf(all).template.spec.containers[0].env.map((e) => [e.name, e.value]));

const specOf = (file: string) => {
  const { raw, region } = readRawConfig(toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), file)));
  return validateConfig(raw, region).spec;
};

/**
 * EventBridge's matching of an event against a pattern, for the two kinds of values the program's patterns
 * use (EventBridge user guide, "Event patterns"): a list of exact values, and `{ "suffix": ... }`. Any other
 * matcher fails the test rather than being taken as a match.
 */
function matches(pattern: Record<string, unknown>, event: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    const value = event[key];
    if (!Array.isArray(expected)) {
      return (
        typeof value === "object" && value !== null && matches(expected as Record<string, unknown>, value as never)
      );
    }
    return expected.some((e) => {
      if (typeof e === "string") return value === e;
      const { suffix, ...rest } = e as { suffix?: string };
      if (suffix === undefined || Object.keys(rest).length) throw new Error(`no matcher for ${JSON.stringify(e)}`);
      return typeof value === "string" && value.endsWith(suffix);
    });
  });
}

/** An "EC2 Instance-terminate Lifecycle Action" event as Auto Scaling sends it to EventBridge. */
const lifecycleAction = (group: string, hook: string) => ({
  version: "0",
  "detail-type": "EC2 Instance-terminate Lifecycle Action",
  source: "aws.autoscaling",
  account: "123456789012",
  region: "us-east-1",
  detail: {
    LifecycleActionToken: "0befcbdb-6ecd-498a-9ff7-ae9b54447cd6",
    AutoScalingGroupName: group,
    LifecycleHookName: hook,
    EC2InstanceId: "i-0633ac2b0d9769723",
    LifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
    Origin: "AutoScalingGroup",
    Destination: "EC2",
  },
});

describe("aws-node-termination-handler's objects", () => {
  it("validate against the Kubernetes OpenAPI schemas, for every example", () => {
    for (const example of examples())
      for (const object of objects(specOf(example.file)))
        expect(
          () => validateAgainstSchema(object),
          `${example.name}: ${object.kind} ${object.metadata.name}`,
        ).not.to.throw();
  });

  it("run in queue mode on the control plane's host network, one per control-plane node at most, a budget for two", () => {
    const single = objects();
    const pod = deploymentOf(single).template.spec;
    expect(pod.nodeSelector).to.have.property("node-role.kubernetes.io/control-plane", "");
    expect(pod.hostNetwork).to.equal(true);
    expect(pod.tolerations.map((t) => t.key)).to.include.members([
      "node-role.kubernetes.io/control-plane",
      "node.cloudprovider.kubernetes.io/uninitialized",
    ]);
    expect(envOf(single)).to.deep.include({ ENABLE_SQS_TERMINATION_DRAINING: "true", QUEUE_URL });
    expect(deploymentOf(single).replicas).to.equal(1);
    expect(single.filter((o) => o.kind === "PodDisruptionBudget")).to.deep.equal([]);
    const ha = objects(specWith({ controlPlane: { count: 3 } }));
    const deployment = deploymentOf(ha) as unknown as { replicas: number; selector: { matchLabels: unknown } };
    expect(deployment.replicas).to.equal(2);
    expect(ha.filter((o) => o.kind === "PodDisruptionBudget").map((o) => o.spec)).to.deep.equal([
      { selector: { matchLabels: deployment.selector.matchLabels }, maxUnavailable: 1 },
    ]);
  });

  it("drain only the cluster's own instances: the tag it checks is on every instance every group launches", async () => {
    const plan = await planWith();
    const tag = String(envOf(objects()).MANAGED_TAG);
    expect(envOf(objects())).to.deep.include({ CHECK_TAG_BEFORE_DRAINING: "true", MANAGED_ASG_TAG: tag });
    const templates = ofType(plan, "aws:ec2/launchTemplate:LaunchTemplate");
    expect(templates).to.have.length(2);
    for (const lt of templates) {
      const specs = inputs(lt).tagSpecifications as { resourceType: string; tags: Record<string, string> }[];
      expect(specs.find((s) => s.resourceType === "instance")!.tags, lt.name).to.have.property(tag);
    }
    // Another cluster's instances have not: the key names the cluster.
    expect(tag).to.equal(`kubernetes.io/cluster/${specWith({}).clusterName}`);
  });
});

describe("NodeTerminationHandlerQueue and NodeTerminationHandler under mocks", () => {
  let plan: Plan;
  before(async () => {
    plan = await planWith();
  });
  const queueType = "cilium-cluster:drain:NodeTerminationHandlerQueue";

  it("declare an encrypted queue that keeps an event as long as the drain hook holds its instance", () => {
    const [queue] = declaredBy(plan, queueType, "drain-queue").filter((r) => r.type === "aws:sqs/queue:Queue");
    expect(inputs(queue)).to.deep.include({
      name: queueName("dev.k8s.local"),
      sqsManagedSseEnabled: true,
      messageRetentionSeconds: TIMEOUTS.drain.hookHeartbeatSeconds,
    });
    const at = { partition: "aws", region: "us-east-1", accountId: MOCK_ACCOUNT };
    expect(JSON.parse(inputs(queue).policy)).to.deep.equal(queuePolicy("dev.k8s.local", at));
    const hooks = ofType(plan, "aws:autoscaling/lifecycleHook:LifecycleHook").filter(
      (h) => inputs(h).name === DRAIN_LIFECYCLE_HOOK,
    );
    expect(hooks).to.have.length(ofType(plan, ASG).length);
    for (const h of hooks) expect(inputs(h).heartbeatTimeout).to.equal(inputs(queue).messageRetentionSeconds);
  });

  it("send every kind of event the handler drains for to the queue, one rule and one target each", () => {
    const children = declaredBy(plan, queueType, "drain-queue");
    const [queue] = children.filter((r) => r.type === "aws:sqs/queue:Queue");
    const rules = children.filter((r) => r.type === "aws:cloudwatch/eventRule:EventRule");
    const targets = children.filter((r) => r.type === "aws:cloudwatch/eventTarget:EventTarget");
    const kinds = (rs: typeof rules) =>
      rs.map((r) => JSON.parse(inputs(r).eventPattern)["detail-type"][0] as string).sort();
    expect(kinds(rules)).to.deep.equal([
      "AWS Health Event",
      "EC2 Instance State-change Notification",
      "EC2 Instance-terminate Lifecycle Action",
      "EC2 Spot Instance Interruption Warning",
    ]);
    expect(targets.map((t) => inputs(t).rule).sort()).to.deep.equal(rules.map((r) => inputs(r).name).sort());
    const queueArn = `arn:aws:sqs:us-east-1:${MOCK_ACCOUNT}:${inputs(queue).name}`;
    for (const t of targets) expect(inputs(t).arn, t.name).to.equal(queueArn);
  });

  it("hand the handler its queue's URL", () => {
    const [deployment] = declaredBy(plan, "cilium-cluster:drain:NodeTerminationHandler", "node-termination-handler")
      .filter((r) => r.type === "kubernetes:apps/v1:Deployment")
      .map((r) => inputs(r) as K8sObject);
    expect(envOf([deployment]).QUEUE_URL).to.equal(
      `https://sqs.us-east-1.amazonaws.com/${MOCK_ACCOUNT}/${queueName("dev.k8s.local")}`,
    );
  });

  it("declare each rendered object once, under NodeTerminationHandler", () => {
    const declared = declaredBy(plan, "cilium-cluster:drain:NodeTerminationHandler", "node-termination-handler")
      .map((r) => `${String(r.type).split(":").pop()}/${(r.inputs as { metadata: { name: string } }).metadata.name}`)
      .sort();
    expect(declared).to.deep.equal(
      objects()
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort(),
    );
    expect(declared.every((d) => d.endsWith(`/${NODE_TERMINATION_HANDLER}`))).to.equal(true);
  });
});

describe("the lifecycle rule", () => {
  it("takes the drain hook's actions of every group of every example, and neither the etcd hook's nor another cluster's", async () => {
    for (const example of examples()) {
      const spec = specOf(example.file);
      const [rule] = interruptionRules(spec.clusterName).filter((r) => r.name === "ASGLifecycle");
      const plan = await planWith({}, loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file));
      const groups = ofType(plan, ASG).map((g) => String(inputs(g).name));
      expect(groups.length, example.name).to.be.greaterThan(1);
      for (const group of groups) {
        const where = `${example.name} ${group}`;
        expect(matches(rule.pattern, lifecycleAction(group, DRAIN_LIFECYCLE_HOOK)), where).to.equal(true);
        // The handler completes every action it receives: the etcd hook's is the etcd-leave service's.
        expect(matches(rule.pattern, lifecycleAction(group, ETCD_LIFECYCLE_HOOK)), where).to.equal(false);
        expect(matches(rule.pattern, lifecycleAction(group, "cilium-cluster-joined")), where).to.equal(false);
      }
      const other = `nodes.other-${spec.clusterName.replace(/\./g, "-")}`;
      expect(matches(rule.pattern, lifecycleAction(other, DRAIN_LIFECYCLE_HOOK)), example.name).to.equal(false);
    }
  });

  it("is matched as EventBridge matches: exact values and suffixes, nothing else taken for a match", () => {
    expect(matches({ a: ["x"] }, { a: "x" })).to.equal(true);
    expect(matches({ a: ["x"] }, { a: "y" })).to.equal(false);
    expect(matches({ a: [{ suffix: ".b" }] }, { a: "a.b" })).to.equal(true);
    expect(matches({ a: [{ suffix: ".b" }] }, { a: "a.c" })).to.equal(false);
    expect(matches({ d: { a: ["x"] } }, { d: { a: "x" } })).to.equal(true);
    expect(matches({ d: { a: ["x"] } }, {})).to.equal(false);
    expect(() => matches({ a: [{ prefix: "a" }] }, { a: "ab" })).to.throw("no matcher");
  });
});
