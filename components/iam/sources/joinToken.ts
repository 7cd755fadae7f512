/**
 * The join token's rotation (bootstrap/join-token.sh): the control plane mints short-lived kubeadm tokens
 * and writes the current one to the node parameter, encrypted under the cluster's key. Control plane only.
 */
import { clusterKeyScope, joinTokenParameter, parameterArn } from "../../secrets/paths";
import type { StatementSource } from "../statementSource";

export const joinToken: StatementSource = {
  sidPrefix: "JoinToken",
  statements: (role, spec, at) => {
    if (role !== "control-plane") return [];
    const token = parameterArn(at, joinTokenParameter(spec.clusterName));
    const key = clusterKeyScope(spec.clusterName, at);
    return [
      { Sid: "JoinTokenWrite", Effect: "Allow", Action: ["ssm:PutParameter"], Resource: token },
      {
        // SSM encrypts a standard SecureString with kms:Encrypt, the parameter's ARN as encryption context.
        Sid: "JoinTokenEncrypt",
        Effect: "Allow",
        Action: ["kms:Encrypt"],
        Resource: key.Resource,
        Condition: { StringEquals: { ...key.tag, "kms:EncryptionContext:PARAMETER_ARN": token } },
      },
    ];
  },
};
