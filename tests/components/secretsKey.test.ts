// The cluster's KMS key: the instance roles' KMS statements and the key's policy, judged by the IAM policy
// simulator. SSM decrypts a SecureString with the parameter's ARN as encryption context (PARAMETER_ARN).
import { expect } from "chai";
import type { PolicyDocument } from "../../components/iam/policyDocument";
import { secretsKeyPolicy } from "../../components/secrets/keyPolicy";
import { ACCOUNT_ID, attachedPolicies, may } from "../iamSimulator";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";

const AT = { partition: "aws", region: REGION, accountId: ACCOUNT_ID, dnsSuffix: "amazonaws.com" };
const spec = validateConfig(baseConfig(), REGION).spec;
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT_ID}:key/11111111-2222-3333-4444-555555555555`;
const ROLES = {
  "control-plane": `arn:aws:iam::${ACCOUNT_ID}:role/masters.dev.k8s.local`,
  node: `arn:aws:iam::${ACCOUNT_ID}:role/nodes.dev.k8s.local`,
};
const KEY_POLICY = secretsKeyPolicy({
  clusterName: spec.clusterName,
  at: AT,
  nodeRoleArn: ROLES.node,
  controlPlaneRoleArn: ROLES["control-plane"],
  backupBucketArn: "arn:aws:s3:::etcd-backups-dev-k8s-local",
  restorePrincipals: [],
});
const parameter = (cluster: string, path: string) =>
  `arn:aws:ssm:${REGION}:${ACCOUNT_ID}:parameter/cilium-cluster/${cluster}/${path}`;

/** A KMS call through SSM for one parameter, on a key with the cluster's tag (or another cluster's). */
function throughSsm(parameterArn: string, keyCluster = spec.clusterName): Record<string, string> {
  return {
    "kms:EncryptionContext:PARAMETER_ARN": parameterArn,
    "kms:ViaService": `ssm.${REGION}.amazonaws.com`,
    "kms:CallerAccount": ACCOUNT_ID,
    "aws:ResourceTag/KubernetesCluster": keyCluster,
  };
}

/** The keys the first control-plane node stores (bootstrap/control-plane.sh), below the cluster id's folder. */
const CONTROL_PLANE_SECRETS = ["ca.key", "sa.key", "etcd/ca.key", "front-proxy-ca.key"].map(
  (f) => `control-plane/pki-0123456789ab/${f}`,
);
const NODE_SECRETS = ["node/cluster-ca-0123456789ab"];
/** Workers' join credentials, one parameter an instance (which instance reads which is IAM's, iam.test.ts). */
const INSTANCE_CREDENTIALS = ["instance/i-0aaaaaaaaaaaaaaaa", "instance/i-0bbbbbbbbbbbbbbbb"];

describe("the cluster's KMS key", () => {
  const policies = {
    "control-plane": attachedPolicies("control-plane", spec, AT),
    node: attachedPolicies("node", spec, AT),
  };
  /** The role's call as AWS judges it: its own policy and the key's. */
  const roleMay = (role: keyof typeof ROLES, action: string, context: Record<string, string>) =>
    may(policies[role], action, KEY, context, { principal: ROLES[role], resourcePolicy: KEY_POLICY });

  it("lets the control-plane role decrypt its and the node parameters, the node role the node ones and the instance credentials", async () => {
    for (const path of [...CONTROL_PLANE_SECRETS, ...NODE_SECRETS])
      expect(
        await roleMay("control-plane", "kms:Decrypt", throughSsm(parameter("dev.k8s.local", path))),
        path,
      ).to.equal(true);
    // The control plane writes the instance credentials and never reads one back.
    for (const path of INSTANCE_CREDENTIALS)
      expect(
        await roleMay("control-plane", "kms:Decrypt", throughSsm(parameter("dev.k8s.local", path))),
        path,
      ).to.equal(false);
    for (const path of [...NODE_SECRETS, ...INSTANCE_CREDENTIALS])
      expect(await roleMay("node", "kms:Decrypt", throughSsm(parameter("dev.k8s.local", path))), path).to.equal(true);
    for (const path of CONTROL_PLANE_SECRETS)
      expect(await roleMay("node", "kms:Decrypt", throughSsm(parameter("dev.k8s.local", path))), path).to.equal(false);
    // The node role's own statement says the same on a key whose policy leaves everything to IAM (KMS's default).
    const iamOnly = {
      Version: "2012-10-17",
      Statement: [
        { Effect: "Allow", Principal: { AWS: `arn:aws:iam::${ACCOUNT_ID}:root` }, Action: "kms:*", Resource: "*" },
      ],
    };
    const own = (path: string) =>
      may(policies.node, "kms:Decrypt", KEY, throughSsm(parameter("dev.k8s.local", path)), {
        principal: ROLES.node,
        resourcePolicy: iamOnly,
      });
    expect(await own("node/ca.crt")).to.equal(true);
    expect(await own("instance/i-0aaaaaaaaaaaaaaaa")).to.equal(true);
    expect(await own("control-plane/ca.key")).to.equal(false);
  });

  it("lets neither role decrypt another cluster's parameters, with this key or the other cluster's", async () => {
    for (const role of ["control-plane", "node"] as const)
      for (const path of [...CONTROL_PLANE_SECRETS, ...NODE_SECRETS, ...INSTANCE_CREDENTIALS]) {
        const other = parameter("other.k8s.local", path);
        expect(await roleMay(role, "kms:Decrypt", throughSsm(other)), `${role} ${path}`).to.equal(false);
        expect(await may(policies[role], "kms:Decrypt", KEY, throughSsm(other, "other.k8s.local"))).to.equal(false);
      }
  });

  it("lets only the control plane encrypt, and only the instance credentials, the Secrets encryption keys and the cluster's keys", async () => {
    const credential = throughSsm(parameter("dev.k8s.local", INSTANCE_CREDENTIALS[0]));
    expect(await roleMay("control-plane", "kms:Encrypt", credential)).to.equal(true);
    const keys = throughSsm(parameter("dev.k8s.local", "control-plane/encryption-keys-0123456789ab"));
    expect(await roleMay("control-plane", "kms:Encrypt", keys)).to.equal(true);
    expect(await roleMay("node", "kms:Encrypt", keys)).to.equal(false);
    expect(await roleMay("node", "kms:Decrypt", keys), "workers never read them").to.equal(false);
    for (const path of CONTROL_PLANE_SECRETS) {
      const stored = throughSsm(parameter("dev.k8s.local", path));
      expect(await roleMay("control-plane", "kms:Encrypt", stored), path).to.equal(true);
      expect(await roleMay("node", "kms:Encrypt", stored), path).to.equal(false);
      expect(
        await roleMay("control-plane", "kms:Encrypt", throughSsm(parameter("other.k8s.local", path))),
        path,
      ).to.equal(false);
    }
    for (const path of ["node/ca.crt", "node/bootstrap-token", "control-plane/ca.key", ...NODE_SECRETS])
      expect(
        await roleMay("control-plane", "kms:Encrypt", throughSsm(parameter("dev.k8s.local", path))),
        path,
      ).to.equal(false);
    expect(await roleMay("node", "kms:Encrypt", credential)).to.equal(false);
  });

  it("keeps the node role to node parameters and instance credentials whatever its IAM policy grants", async () => {
    const everything: PolicyDocument = {
      Version: "2012-10-17",
      Statement: [{ Sid: "All", Effect: "Allow", Action: ["kms:Decrypt", "kms:Encrypt"], Resource: "*" }],
    };
    const asNode = (action: string, path: string) =>
      may(everything, action, KEY, throughSsm(parameter("dev.k8s.local", path)), {
        principal: ROLES.node,
        resourcePolicy: KEY_POLICY,
      });
    expect(await asNode("kms:Decrypt", NODE_SECRETS[0])).to.equal(true);
    expect(await asNode("kms:Decrypt", "instance/i-0aaaaaaaaaaaaaaaa")).to.equal(true);
    for (const path of [...CONTROL_PLANE_SECRETS, "control-plane/encryption-keys-0123456789ab"])
      expect(await asNode("kms:Decrypt", path), path).to.equal(false);
    // Beside the two prefixes: a parameter named like them is not under them.
    expect(await asNode("kms:Decrypt", "instance-x/i-0aaaaaaaaaaaaaaaa")).to.equal(false);
    expect(await asNode("kms:Encrypt", NODE_SECRETS[0])).to.equal(false);
    expect(await asNode("kms:Encrypt", "instance/i-0aaaaaaaaaaaaaaaa")).to.equal(false);
  });

  it("opens to an account principal only through SSM, for this cluster, when its IAM policy allows it", async () => {
    const admin = `arn:aws:iam::${ACCOUNT_ID}:role/admin`;
    const decrypt: PolicyDocument = {
      Version: "2012-10-17",
      Statement: [{ Sid: "Decrypt", Effect: "Allow", Action: ["kms:Decrypt"], Resource: "*" }],
    };
    const readOnly: PolicyDocument = {
      Version: "2012-10-17",
      Statement: [{ Sid: "Read", Effect: "Allow", Action: ["ssm:GetParameter", "kms:DescribeKey"], Resource: "*" }],
    };
    const caKey = throughSsm(parameter("dev.k8s.local", "control-plane/ca.key"));
    const asAdmin = (policy: PolicyDocument, context: Record<string, string>) =>
      may(policy, "kms:Decrypt", KEY, context, { principal: admin, resourcePolicy: KEY_POLICY });
    expect(await asAdmin(decrypt, caKey), "an admin minting a kubeconfig").to.equal(true);
    expect(await asAdmin(readOnly, caKey), "a reader of every parameter").to.equal(false);
    const direct = { ...caKey, "kms:ViaService": `ec2.${REGION}.amazonaws.com` };
    expect(await asAdmin(decrypt, direct), "not through SSM").to.equal(false);
    expect(await asAdmin(decrypt, throughSsm(parameter("other.k8s.local", "control-plane/ca.key")))).to.equal(false);
  });

  it("leaves the key's administration to the account's administrators, so its policy can always be changed", async () => {
    // An administrator by IAM (AdministratorAccess: every action): the key's policy delegates to IAM.
    const administrator: PolicyDocument = {
      Version: "2012-10-17",
      Statement: [{ Sid: "Everything", Effect: "Allow", Action: ["*"], Resource: "*" }],
    };
    const asAdministrator = (action: string, context: Record<string, string> = {}) =>
      may(administrator, action, KEY, context, {
        principal: `arn:aws:iam::${ACCOUNT_ID}:role/administrator`,
        resourcePolicy: KEY_POLICY,
      });
    for (const action of ["kms:PutKeyPolicy", "kms:ScheduleKeyDeletion", "kms:DisableKey", "kms:CreateGrant"])
      expect(await asAdministrator(action), action).to.equal(true);
    // ... but administration is not use: the key decrypts nothing outside SSM and this cluster's parameters.
    expect(await asAdministrator("kms:Decrypt")).to.equal(false);
    expect(
      await asAdministrator("kms:Decrypt", throughSsm(parameter("dev.k8s.local", "control-plane/ca.key"))),
    ).to.equal(true);
  });
});
