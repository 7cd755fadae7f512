// Session Manager and the bootstrap's health report on both instance roles, checked with a policy simulator.
import { runSimulation } from "@cloud-copilot/iam-simulate";
import { expect } from "chai";
import { AwsCoordinates, controlPlanePolicy, nodePolicy } from "../../components/iam/policies";
import { SESSION_MANAGER_ACTIONS } from "../../components/iam/nodeOperations";
import type { PolicyDocument } from "../../components/iam/policyDocument";
import { validateConfig } from "../../spec/validation";
import { baseConfig, merge, REGION } from "../fixtures";

const AT: AwsCoordinates = { partition: "aws", region: REGION, accountId: "000000000000" };
const INSTANCE = "arn:aws:ec2:us-east-1:000000000000:instance/i-0123456789abcdef0";
const GROUP =
  "arn:aws:autoscaling:us-east-1:000000000000:autoScalingGroup:11111111-2222-3333-4444-555555555555:autoScalingGroupName/nodes.dev.k8s.local";

async function may(policy: PolicyDocument, action: string, resource: string, context: Record<string, string> = {}) {
  const result = await runSimulation(
    {
      request: {
        principal: "arn:aws:iam::000000000000:role/test",
        action,
        resource: { resource, accountId: AT.accountId },
        contextVariables: context,
      },
      identityPolicies: [{ name: "inline", policy }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (result.resultType === "error") throw new Error(JSON.stringify(result.errors));
  return result.overallResult === "Allowed";
}

describe("node operations on both instance roles", () => {
  const policies = (["", "crd", "eni"] as const).flatMap((ipam) => {
    const cilium = ipam === "eni" ? { ipam, disableMasquerade: true } : { ipam, disableMasquerade: false };
    const { spec } = validateConfig(merge(baseConfig(), { networking: { cilium } }), REGION);
    return [
      [`control plane, ipam '${ipam}'`, controlPlanePolicy(spec, AT)],
      [`nodes, ipam '${ipam}'`, nodePolicy(spec, AT)],
    ] as const;
  });

  it("lets Session Manager reach every node (AmazonSSMManagedInstanceCore's actions but parameter reads)", async () => {
    expect(SESSION_MANAGER_ACTIONS).not.to.include.members(["ssm:GetParameter", "ssm:GetParameters"]);
    for (const [role, policy] of policies) {
      expect(await may(policy, "ssm:UpdateInstanceInformation", INSTANCE), role).to.equal(true);
      for (const action of ["CreateControlChannel", "CreateDataChannel", "OpenControlChannel", "OpenDataChannel"])
        expect(await may(policy, `ssmmessages:${action}`, "*"), `${role}: ${action}`).to.equal(true);
      expect(await may(policy, "ec2messages:GetMessages", "*"), role).to.equal(true);
      // Session Manager does not open another principal's sessions or run commands elsewhere.
      expect(await may(policy, "ssm:StartSession", INSTANCE), role).to.equal(false);
      expect(await may(policy, "ssm:SendCommand", INSTANCE), role).to.equal(false);
    }
  });

  it("lets a node mark instances unhealthy only in its own cluster's Auto Scaling groups", async () => {
    for (const [role, policy] of policies) {
      const own = { "autoscaling:ResourceTag/KubernetesCluster": "dev.k8s.local" };
      const other = { "autoscaling:ResourceTag/KubernetesCluster": "other.k8s.local" };
      expect(await may(policy, "autoscaling:SetInstanceHealth", GROUP, own), role).to.equal(true);
      expect(await may(policy, "autoscaling:SetInstanceHealth", GROUP, other), role).to.equal(false);
      expect(await may(policy, "autoscaling:TerminateInstanceInAutoScalingGroup", GROUP, own), role).to.equal(false);
    }
  });
});
