/**
 * One measured run for `npm run bench`, in a process of its own: `floor` loads the SDKs (every resource
 * class the program declares) and runs an empty program under the same mocks; `dev` and `large` plan those stacks. Prints JSON: resources, the first
 * plan's time (with the SDK modules it loads on first use), a second, warm plan's time, and peak RSS.
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as random from "@pulumi/random";
import * as tls from "@pulumi/tls";
import * as pulumi from "@pulumi/pulumi";
import { join } from "path";
import { PROJECT_DIR } from "../plan/examples";
import { planMocks } from "../plan/mocks";
import { runPlan } from "../plan/run";
import { loadStackConfig, setPath } from "../plan/stackConfig";

const ZONES = ["a", "b", "c", "d", "e", "f"].map((z) => `us-east-1${z}`);

function config(scenario: string) {
  const base = loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), join(PROJECT_DIR, "Pulumi.dev.yaml"));
  if (scenario === "large") {
    ZONES.forEach((zone, i) => setPath(base, `network.availabilityZones[${i}]`, zone));
    setPath(base, "controlPlane.count", "3");
    for (let i = 0; i < 10; i++) {
      setPath(base, `nodeGroups[${i}].name`, `group-${i}`);
      setPath(base, `nodeGroups[${i}].instanceType`, "m6i.xlarge");
      setPath(base, `nodeGroups[${i}].maxSize`, "6");
    }
  }
  return base;
}

async function main(scenario: string): Promise<void> {
  const start = process.hrtime.bigint();
  let resources: number;
  let warmPlanMs = 0;
  if (scenario === "floor") {
    // The SDKs load each resource class on first access; the floor loads every class the program declares.
    void [
      [aws.ec2.Vpc, aws.ec2.Subnet, aws.ec2.InternetGateway, aws.ec2.Eip, aws.ec2.NatGateway, aws.ec2.RouteTable],
      [
        aws.ec2.Route,
        aws.ec2.RouteTableAssociation,
        aws.ec2.SecurityGroup,
        aws.ec2.LaunchTemplate,
        aws.ec2.getAmiOutput,
      ],
      [aws.vpc.SecurityGroupIngressRule, aws.vpc.SecurityGroupEgressRule, aws.lb.LoadBalancer, aws.lb.TargetGroup],
      [
        aws.lb.Listener,
        aws.iam.Role,
        aws.iam.RolePolicy,
        aws.iam.InstanceProfile,
        aws.autoscaling.Group,
        aws.ssm.Parameter,
      ],
      [
        aws.getCallerIdentityOutput,
        aws.getPartitionOutput,
        k8s.Provider,
        k8s.core.v1.ServiceAccount,
        k8s.core.v1.ConfigMap,
      ],
      [k8s.rbac.v1.ClusterRole, k8s.rbac.v1.ClusterRoleBinding, k8s.rbac.v1.Role, k8s.rbac.v1.RoleBinding],
      [k8s.apps.v1.DaemonSet, k8s.apps.v1.Deployment, k8s.policy.v1.PodDisruptionBudget, pulumi.dynamic.Resource],
      [
        tls.PrivateKey,
        tls.SelfSignedCert,
        tls.CertRequest,
        tls.LocallySignedCert,
        random.RandomString,
        random.RandomPassword,
      ],
    ];
    (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
    await pulumi.runtime.setMocks(planMocks("us-east-1", ZONES), "cilium-cluster", "floor", false);
    await pulumi.runtime.runInPulumiStack(async () => ({}));
    await pulumi.runtime.disconnect();
    resources = 1;
  } else {
    const plan = await runPlan(config(scenario), scenario);
    if (plan.errors) throw new Error(`invalid ${scenario} config`);
    resources = plan.resources.length;
  }
  const planMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (scenario !== "floor") {
    const warmStart = process.hrtime.bigint();
    await runPlan(config(scenario), scenario);
    warmPlanMs = Number(process.hrtime.bigint() - warmStart) / 1e6;
  }
  console.log(JSON.stringify({ resources, planMs, warmPlanMs, maxRssKb: process.resourceUsage().maxRSS }));
}

main(process.argv[2]).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
