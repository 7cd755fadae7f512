/**
 * The session name `npm run kubeconfig` assumes the admin role with, from the caller's own ARN: what the
 * authenticator names the admin in the cluster (`admin:<session name>`, in the API server's audit log).
 * CloudTrail's AssumeRole event names the caller behind it whatever the session name. Pure.
 */

/** IAM's RoleSessionName: 2 to 64 of `[\w+=,.@-]`. */
const SESSION_NAME_REJECTS = /[^\w+=,.@-]/g;

/**
 * A user's name (`…:user/alice` → `alice`), a role session's name (`…:assumed-role/Role/alice@example.com`
 * → `alice@example.com`, the person behind an IAM Identity Center role), else the ARN's last part.
 */
export function sessionName(callerArn: string): string {
  const name = (callerArn.split("/").pop() || callerArn).replace(SESSION_NAME_REJECTS, "-").slice(0, 64);
  return name.length >= 2 ? name : `${name}--`.slice(0, 2);
}
