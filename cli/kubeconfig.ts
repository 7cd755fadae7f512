/**
 * `npm run kubeconfig`: a kubeconfig for the person who runs it, holding no credential: the command that
 * makes one, `--exec`, which prints an ExecCredential. That assumes the cluster's admin role (`adminRoleArn`,
 * which only `api.admins` may assume) with a session named after the caller's own AWS identity, and presigns
 * a 15-minute token with it, which aws-iam-authenticator on the control plane checks with STS and maps to
 * `admin:<session name>` in kubeadm's admin group. The Kubernetes provider of `pulumi up` runs the same. The
 * cluster, API, CA certificate, role and region default to the stack's outputs.
 */
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { readFileSync, writeFileSync } from "fs";
import { resolve } from "path";
import { parseArgs } from "util";
import { clusterToken } from "../components/adminAccess/clusterToken";
import { adminCredentialArgs, EXEC_CREDENTIAL_API, renderKubeconfig } from "../components/adminAccess/kubeconfigRender";
import { sessionName } from "../components/adminAccess/sessionName";
import { readStackOutputs } from "./stackOutputs";
import { fromCaller } from "./callerPath";

const USAGE = `usage: npm run kubeconfig -- [--out kubeconfig] [--exec] [--cluster NAME] [--server URL] [--ca-file PEM]
       [--role-arn ARN] [--region REGION] [--profile PROFILE]
exit codes: 0 written; 1 the admin role could not be assumed or the stack read; 2 bad usage`;

function options() {
  try {
    return parseArgs({
      options: {
        exec: { type: "boolean", default: false },
        out: { type: "string", default: "kubeconfig" },
        cluster: { type: "string" },
        server: { type: "string" },
        "ca-file": { type: "string" },
        "role-arn": { type: "string" },
        region: { type: "string" },
        profile: { type: "string" },
        help: { type: "boolean", default: false },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`kubeconfig: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

const values = options();
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

/** The stack's outputs, read only for what the options leave out. */
const stackOutputs = () => readStackOutputs() as Record<string, string>;

/** The DNS suffix of a partition's regional endpoints (the partitions' endpoints.json); the role's ARN names it. */
const DNS_SUFFIX: Record<string, string> = {
  aws: "amazonaws.com",
  "aws-cn": "amazonaws.com.cn",
  "aws-us-gov": "amazonaws.com",
};
function dnsSuffix(partition: string): string {
  const suffix = DNS_SUFFIX[partition];
  if (!suffix) throw new Error(`no STS endpoint known for the partition ${partition} of the admin role`);
  return suffix;
}

async function main(): Promise<void> {
  const given = values.cluster && values.region && values["role-arn"];
  const complete = given && (values.exec || (values.server && values["ca-file"]));
  const outputs = complete ? {} : stackOutputs();
  const clusterName = values.cluster ?? outputs.clusterName;
  const region = values.region ?? outputs.region;
  const roleArn = values["role-arn"] ?? outputs.adminRoleArn;
  if (!values.exec) {
    const server = values.server ?? outputs.apiEndpoint;
    const caCertPem = values["ca-file"]
      ? readFileSync(fromCaller(values["ca-file"]), "utf8")
      : outputs.apiCaCertificate;
    const args = adminCredentialArgs({ clusterName, region, roleArn, profile: values.profile });
    const exec = { command: process.execPath, args: [resolve(__dirname, "kubeconfig.js"), ...args] };
    writeFileSync(fromCaller(values.out), renderKubeconfig({ clusterName, server, caCertPem, exec }), { mode: 0o600 });
    process.stderr.write(`${values.out}: cluster-admin through ${roleArn}, 15-minute tokens made as needed\n`);
    return;
  }
  const sts = new STSClient({ region, profile: values.profile });
  const caller = (await sts.send(new GetCallerIdentityCommand({}))).Arn ?? "";
  const assumed = await sts.send(
    new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: sessionName(caller), DurationSeconds: 900 }),
  );
  const c = assumed.Credentials;
  if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error(`${roleArn} gave no credentials`);
  const partition = roleArn.split(":")[1];
  const { token, expiration } = await clusterToken({
    clusterId: clusterName,
    region,
    dnsSuffix: dnsSuffix(partition),
    credentials: { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken },
  });
  const status = { token, expirationTimestamp: expiration.toISOString() };
  process.stdout.write(`${JSON.stringify({ apiVersion: EXEC_CREDENTIAL_API, kind: "ExecCredential", status })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`kubeconfig: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
