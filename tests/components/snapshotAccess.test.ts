// Who can open an etcd snapshot, simulated with the real policies: reading one takes both S3 (the identity
// policies and the bucket policy) and KMS through S3 (the identity policies and the cluster key's policy).
// A snapshot holds every Secret of the cluster, so only the control plane and the restore principals of the
// config may; the account's read-only roles, the worker role and another cluster's roles may not.
import { expect } from "chai";
import { backupBucketArn, backupBucketPolicy } from "../../components/controlPlane/backupBucket";
import type { PolicyDocument } from "../../components/iam/policyDocument";
import { secretsKeyPolicy } from "../../components/secrets/keyPolicy";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";
import { ACCOUNT_ID, attachedPolicies, may } from "../iamSimulator";
import { LATEST_SNAPSHOT_KEY } from "../../components/nodes/controlPlaneNames";

const AT = { partition: "aws", region: REGION, accountId: ACCOUNT_ID, dnsSuffix: "amazonaws.com" };
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT_ID}:key/11111111-2222-3333-4444-555555555555`;
const role = (name: string) => `arn:aws:iam::${ACCOUNT_ID}:role/${name}`;
const RESTORER = role("etcd-restore");
const ROLES = {
  controlPlane: role("masters.dev.k8s.local"),
  node: role("nodes.dev.k8s.local"),
  otherControlPlane: role("masters.other.k8s.local"),
};

const config = baseConfig();
config.controlPlane = { ...(config.controlPlane as object), backupRestorePrincipals: [RESTORER] };
const spec = validateConfig(config, REGION).spec;
const other = validateConfig({ ...baseConfig(), clusterName: "other.k8s.local" }, REGION).spec;
const BUCKET = backupBucketArn(spec.clusterName, AT);
const SNAPSHOT = `${BUCKET}/${LATEST_SNAPSHOT_KEY}`;
const BUCKET_POLICY = backupBucketPolicy(BUCKET, {
  writerRoleArn: ROLES.controlPlane,
  restorePrincipals: [RESTORER],
  keyArn: KEY,
});
const KEY_POLICY = secretsKeyPolicy({
  clusterName: spec.clusterName,
  at: AT,
  nodeRoleArn: ROLES.node,
  controlPlaneRoleArn: ROLES.controlPlane,
  backupBucketArn: BUCKET,
  restorePrincipals: [RESTORER],
});

const document = (Action: string[]): PolicyDocument => ({
  Version: "2012-10-17",
  Statement: [{ Sid: "Managed", Effect: "Allow", Action, Resource: "*" }],
});
/** AWS's managed `AmazonS3ReadOnlyAccess`, as AWS publishes it (its S3 statement). */
const S3_READ_ONLY = document(["s3:Get*", "s3:List*", "s3:Describe*"]);
/** AWS's managed `ReadOnlyAccess`: its S3, KMS and SSM entries (the rest concern other services). */
const READ_ONLY = document(["s3:Get*", "s3:List*", "kms:Describe*", "kms:Get*", "kms:List*", "ssm:Get*", "ssm:List*"]);
/** What a restorer's own IAM policy grants (docs/operations.md, restoring): S3 only; the key's policy names it. */
const RESTORE_POLICY = document(["s3:GetObject", "s3:ListBucket"]);

/** S3's call to KMS for an object of the backup bucket (with a Bucket Key, the context is the bucket's ARN). */
const throughS3 = {
  "kms:ViaService": `s3.${REGION}.amazonaws.com`,
  "kms:CallerAccount": ACCOUNT_ID,
  "kms:EncryptionContext:aws:s3:arn": BUCKET,
};

/** Whether PRINCIPAL, with these identity policies, gets a snapshot's bytes: S3 serves it and KMS decrypts it. */
async function opens(principal: string, policies: PolicyDocument | readonly PolicyDocument[], snapshot = SNAPSHOT) {
  const get = await may(
    policies,
    "s3:GetObject",
    snapshot,
    { "aws:PrincipalArn": principal },
    {
      principal,
      resourcePolicy: BUCKET_POLICY,
    },
  );
  const decrypt = await may(policies, "kms:Decrypt", KEY, throughS3, { principal, resourcePolicy: KEY_POLICY });
  return { get, decrypt };
}

describe("who can open an etcd snapshot, simulated with the bucket's and the key's policies", () => {
  it("the control-plane role writes them under the cluster's key, and reads them back", async () => {
    const policies = attachedPolicies("control-plane", spec, AT);
    const put = await may(
      policies,
      "s3:PutObject",
      SNAPSHOT,
      { "aws:PrincipalArn": ROLES.controlPlane },
      {
        principal: ROLES.controlPlane,
        resourcePolicy: BUCKET_POLICY,
      },
    );
    expect(put).to.equal(true);
    for (const action of ["kms:GenerateDataKey", "kms:Decrypt"])
      expect(
        await may(policies, action, KEY, throughS3, { principal: ROLES.controlPlane, resourcePolicy: KEY_POLICY }),
        action,
      ).to.equal(true);
    // A node that creates the cluster again restores the latest snapshot, or the one a restore request names
    // (bootstrap/etcd.sh).
    expect(await opens(ROLES.controlPlane, policies)).to.deep.equal({ get: true, decrypt: true });
    expect(await opens(ROLES.controlPlane, policies, `${BUCKET}/etcd/20260101T000000Z.db`)).to.deep.equal({
      get: true,
      decrypt: true,
    });
  });

  it("a restore principal of the config can open them", async () => {
    expect(await opens(RESTORER, RESTORE_POLICY)).to.deep.equal({ get: true, decrypt: true });
  });

  it("ReadOnlyAccess, AmazonS3ReadOnlyAccess, the worker role and another cluster's roles cannot", async () => {
    const readers: [string, string, PolicyDocument | readonly PolicyDocument[]][] = [
      ["ReadOnlyAccess", role("auditor"), READ_ONLY],
      ["AmazonS3ReadOnlyAccess", role("reports"), S3_READ_ONLY],
      ["the worker role", ROLES.node, attachedPolicies("node", spec, AT)],
      ["another cluster's control plane", ROLES.otherControlPlane, attachedPolicies("control-plane", other, AT)],
      // Even one whose IAM policy grants everything: the bucket policy and the key policy refuse it.
      ["an administrator", role("administrator"), document(["*"])],
    ];
    for (const [name, principal, policies] of readers)
      expect(await opens(principal, policies), name).to.deep.equal({ get: false, decrypt: false });
  });

  it("another cluster's key policy gives this cluster's control plane nothing of its snapshots", async () => {
    const theirs = secretsKeyPolicy({
      clusterName: other.clusterName,
      at: AT,
      nodeRoleArn: role("nodes.other.k8s.local"),
      controlPlaneRoleArn: ROLES.otherControlPlane,
      backupBucketArn: backupBucketArn(other.clusterName, AT),
      restorePrincipals: [],
    });
    const ourSnapshotThroughTheirKey = await may(
      attachedPolicies("control-plane", spec, AT),
      "kms:Decrypt",
      KEY,
      throughS3,
      {
        principal: ROLES.controlPlane,
        resourcePolicy: theirs,
      },
    );
    expect(ourSnapshotThroughTheirKey).to.equal(false);
  });
});
