/**
 * `npm run kubeconfig -- --ttl 18h`: a kubeconfig for the person who asks, with a client certificate in
 * `kubeadm:cluster-admins` that expires after --ttl (at most a day), signed here with the cluster CA's key
 * read from SSM, which only principals the cluster's KMS key admits can decrypt (kOps's `kops export kubecfg
 * --admin=18h`). `--exec` prints an ExecCredential instead: what the Kubernetes provider of `pulumi up` runs
 * whenever its last credential has expired. The cluster, API and region default to the stack's outputs.
 */
import { SSMClient } from "@aws-sdk/client-ssm";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { execFileSync } from "child_process";
import { writeFileSync } from "fs";
import { parseArgs } from "util";
import { signAdminCredential } from "../components/secrets/adminCredential";
import { readClusterCa } from "../components/secrets/clusterCa";
import { EXEC_CREDENTIAL_API, renderKubeconfig } from "../components/secrets/kubeconfigRender";
import { durationSeconds } from "../components/stackAws";

const MAX_TTL_SECONDS = 24 * 3600;

const USAGE = `usage: npm run kubeconfig -- [--ttl 1h] [--out kubeconfig] [--exec] [--cluster NAME] [--server URL]
       [--region REGION] [--profile PROFILE] [--user NAME]
exit codes: 0 written; 1 the CA could not be read or signed with; 2 bad usage`;

function options() {
  try {
    return parseArgs({
      options: {
        ttl: { type: "string", default: "1h" },
        exec: { type: "boolean", default: false },
        out: { type: "string", default: "kubeconfig" },
        cluster: { type: "string" },
        server: { type: "string" },
        region: { type: "string" },
        profile: { type: "string" },
        user: { type: "string" },
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
function stackOutputs(): Record<string, string> {
  return JSON.parse(execFileSync("pulumi", ["stack", "output", "--json"], { encoding: "utf8" }));
}

async function main(): Promise<void> {
  const ttl = durationSeconds(values.ttl);
  if (!ttl || ttl > MAX_TTL_SECONDS) throw new Error(`--ttl ${values.ttl}: a duration such as 1h or 18h, at most 24h`);
  const outputs = values.cluster && values.region && (values.exec || values.server) ? {} : stackOutputs();
  const clusterName = values.cluster ?? outputs.clusterName;
  const region = values.region ?? outputs.region;
  const aws = { region, profile: values.profile };
  const user =
    values.user ?? `admin:${(await new STSClient(aws).send(new GetCallerIdentityCommand({}))).Arn ?? "unknown"}`;
  const ca = await readClusterCa(clusterName, new SSMClient(aws));
  const credential = signAdminCredential({ ...ca, user, ttlMs: ttl * 1000 });
  if (values.exec) {
    const status = {
      clientCertificateData: credential.certPem,
      clientKeyData: credential.keyPem,
      expirationTimestamp: credential.notAfter.toISOString(),
    };
    process.stdout.write(`${JSON.stringify({ apiVersion: EXEC_CREDENTIAL_API, kind: "ExecCredential", status })}\n`);
    return;
  }
  const server = values.server ?? outputs.apiEndpoint;
  const client = { clientCertPem: credential.certPem, clientKeyPem: credential.keyPem };
  writeFileSync(values.out, renderKubeconfig({ clusterName, server, caCertPem: ca.caCertPem, user: client }), {
    mode: 0o600,
  });
  process.stderr.write(
    `${values.out}: ${user} in the cluster-admins group until ${credential.notAfter.toISOString()}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`kubeconfig: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
