/**
 * The cluster CA's certificate and key, read from SSM as the person or process asking: SSM decrypts the key
 * only for principals the cluster's KMS key lets through (docs/iam.md).
 */
import { GetParametersCommand, SSMClient } from "@aws-sdk/client-ssm";
import { parameterPrefix } from "./paths";

export interface ClusterCa {
  caCertPem: string;
  caKeyPem: string;
}

export async function readClusterCa(clusterName: string, client: SSMClient): Promise<ClusterCa> {
  const prefix = parameterPrefix(clusterName, "control-plane");
  const names = { caCertPem: `${prefix}ca.crt`, caKeyPem: `${prefix}ca.key` };
  const answer = await client.send(new GetParametersCommand({ Names: Object.values(names), WithDecryption: true }));
  if (answer.InvalidParameters?.length) throw new Error(`no such parameters: ${answer.InvalidParameters.join(", ")}`);
  const value = (name: string) => answer.Parameters?.find((p) => p.Name === name)?.Value ?? "";
  return { caCertPem: value(names.caCertPem), caKeyPem: value(names.caKeyPem) };
}
