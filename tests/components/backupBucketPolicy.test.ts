// The etcd backup bucket's own protections: its policy, simulated (only the control-plane role writes, only
// it and the restore principals read, no one deletes a snapshot, nothing without TLS), and its resources kept on `pulumi destroy` (retainOnDelete, as
// the SDK sends it to the engine).
import { runSimulation } from "@cloud-copilot/iam-simulate";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { backupBucketName, backupBucketPolicy } from "../../components/controlPlane/backupBucket";
import { declareBackupBucket } from "../../components/controlPlane/etcdBackups";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";

const BUCKET = `arn:aws:s3:::${backupBucketName("dev.k8s.local", "000000000000", REGION)}`;
const OBJECT = `${BUCKET}/etcd/20260101T000000Z.db`;
const CONTROL_PLANE = "arn:aws:iam::000000000000:role/control-plane.dev.k8s.local";
const ADMIN = "arn:aws:iam::000000000000:role/admin";
const RESTORER = "arn:aws:iam::000000000000:role/etcd-restore";
const KEY = "arn:aws:kms:us-east-1:000000000000:key/11111111-2222-3333-4444-555555555555";
const ACCESS = { writerRoleArn: CONTROL_PLANE, restorePrincipals: [RESTORER], keyArn: KEY };
const everything = { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] };

/** Whether PRINCIPAL, whose own policies allow everything, may do ACTION on RESOURCE under the bucket policy. */
async function may(
  principal: string,
  action: string,
  resource: string,
  secure = true,
  headers: Record<string, string> = {},
) {
  const result = await runSimulation(
    {
      request: {
        principal,
        action,
        resource: { resource, accountId: "000000000000" },
        contextVariables: {
          "aws:SecureTransport": secure ? "true" : "false",
          "aws:PrincipalArn": principal,
          ...headers,
        },
      },
      identityPolicies: [{ name: "everything", policy: everything }],
      resourcePolicy: backupBucketPolicy(BUCKET, ACCESS),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (result.resultType === "error") throw new Error(JSON.stringify(result.errors));
  return result.overallResult === "Allowed";
}

describe("the etcd backup bucket's policy, simulated", () => {
  it("lets only the control-plane role write snapshots", async () => {
    expect(await may(CONTROL_PLANE, "s3:PutObject", OBJECT)).to.equal(true);
    expect(await may(ADMIN, "s3:PutObject", OBJECT)).to.equal(false);
  });

  it("lets only the control plane and the restore principals read a snapshot, whatever IAM grants", async () => {
    for (const action of ["s3:GetObject", "s3:GetObjectVersion"]) {
      expect(await may(CONTROL_PLANE, action, OBJECT), action).to.equal(true);
      expect(await may(RESTORER, action, OBJECT), action).to.equal(true);
      expect(await may(ADMIN, action, OBJECT), action).to.equal(false);
    }
    // Listing stays with IAM: names and sizes only.
    expect(await may(ADMIN, "s3:ListBucket", BUCKET)).to.equal(true);
  });

  it("refuses a write naming another key than the cluster's; one naming none gets the bucket's default", async () => {
    const sse = (key?: string) => ({
      "s3:x-amz-server-side-encryption": "aws:kms",
      ...(key ? { "s3:x-amz-server-side-encryption-aws-kms-key-id": key } : {}),
    });
    expect(await may(CONTROL_PLANE, "s3:PutObject", OBJECT, true, {}), "the bucket's default").to.equal(true);
    expect(await may(CONTROL_PLANE, "s3:PutObject", OBJECT, true, sse(KEY))).to.equal(true);
    expect(await may(CONTROL_PLANE, "s3:PutObject", OBJECT, true, sse()), "S3's AWS-managed key").to.equal(false);
    const other = "arn:aws:kms:us-east-1:000000000000:alias/aws/s3";
    expect(await may(CONTROL_PLANE, "s3:PutObject", OBJECT, true, sse(other))).to.equal(false);
    const aes = { "s3:x-amz-server-side-encryption": "AES256" };
    expect(await may(CONTROL_PLANE, "s3:PutObject", OBJECT, true, aes), "S3-managed keys").to.equal(false);
  });

  it("lets no one delete a snapshot or a version of one", async () => {
    for (const principal of [CONTROL_PLANE, ADMIN]) {
      expect(await may(principal, "s3:DeleteObject", OBJECT)).to.equal(false);
      expect(await may(principal, "s3:DeleteObjectVersion", OBJECT)).to.equal(false);
    }
  });

  it("refuses every request without TLS", async () => {
    expect(await may(CONTROL_PLANE, "s3:PutObject", OBJECT, false)).to.equal(false);
    expect(await may(CONTROL_PLANE, "s3:GetObject", OBJECT, false)).to.equal(false);
    expect(await may(ADMIN, "s3:ListBucket", BUCKET, false)).to.equal(false);
    expect(await may(ADMIN, "s3:ListBucket", BUCKET)).to.equal(true);
  });
});

describe("the etcd backup bucket on pulumi destroy", () => {
  it("keeps the bucket and every setting of it (retainOnDelete), its policy naming the control-plane role, the restorers and the key", async () => {
    pulumi.runtime.setMocks(
      {
        newResource: (a) => ({ id: `${a.name}-id`, state: { ...a.inputs, arn: `arn:aws:s3:::${a.inputs.bucket}` } }),
        call: (a) => a.inputs,
      },
      "cilium-cluster",
      "test",
      false,
    );
    const monitor = pulumi.runtime.getMonitor() as unknown as Record<string, (req: never, cb: unknown) => void>;
    const register = monitor.registerResource.bind(monitor);
    const sent: { type: string; retainOnDelete: boolean; policy?: string }[] = [];
    monitor.registerResource = (req: never, callback) => {
      const request = req as {
        getType(): string;
        getRetainondelete(): boolean | undefined;
        getObject(): { toJavaScript(): Record<string, unknown> };
      };
      sent.push({
        type: request.getType(),
        retainOnDelete: request.getRetainondelete() ?? false,
        policy: request.getObject().toJavaScript().policy as string | undefined,
      });
      register(req, callback);
    };
    const spec = validateConfig(baseConfig(), REGION).spec;
    const parent = new pulumi.ComponentResource("test:index:Parent", "parent");
    const coordinates = pulumi.output({ accountId: "000000000000", region: REGION });
    const name = declareBackupBucket(
      "state",
      { ...spec, controlPlane: { ...spec.controlPlane, backupRestorePrincipals: [RESTORER] } },
      coordinates,
      pulumi.output(CONTROL_PLANE),
      pulumi.output(KEY),
      parent,
    );
    await new Promise((resolve) => name.apply(resolve));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const bucketResources = sent.filter((s) => s.type.startsWith("aws:s3/"));
    expect(bucketResources.map((s) => s.type)).to.include.members([
      "aws:s3/bucket:Bucket",
      "aws:s3/bucketVersioning:BucketVersioning",
      "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
      "aws:s3/bucketPolicy:BucketPolicy",
    ]);
    expect(bucketResources.filter((s) => !s.retainOnDelete).map((s) => s.type)).to.deep.equal([]);
    const policy = bucketResources.find((s) => s.type === "aws:s3/bucketPolicy:BucketPolicy")!.policy!;
    expect(JSON.parse(policy)).to.deep.equal(backupBucketPolicy(BUCKET, ACCESS));
  });
});
