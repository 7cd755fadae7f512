/**
 * aws-iam-authenticator on every control-plane node: the API server's token webhook (kOps's
 * `authentication.aws`, EKS's authenticator). A token is a presigned STS GetCallerIdentity request for this
 * cluster (`x-k8s-aws-id`); the authenticator replays it to STS, which answers with the caller's identity, and
 * maps the cluster's admin role (adminRoleFacts.ts) to `admin:<session name>` in kubeadm's admin group.
 * Nothing else maps: any other AWS identity is refused. A token lives 15 minutes from its signature.
 *
 * The files, by path, pure: its configuration and its static pod, which the bootstrap installs once kubeadm
 * has started the API server (bootstrap/authenticator.sh; kubeadm wants the manifests' directory to itself
 * until then). The bootstrap also makes its serving key and the API server's webhook kubeconfig
 * (AUTHENTICATOR_WEBHOOK_FILE of nodes/nodeFacts.ts), before kubeadm: the API server reads that file at start.
 * Besides its port, it answers health checks (only "ok") on 21363 of every address of the node.
 */
import { stringify } from "yaml";
import { AWS_IAM_AUTHENTICATOR_RELEASE } from "../../catalogs/awsAddonReleases";

/** Where the authenticator listens: the API server on the same node, alone (kOps's port too). */
export const AUTHENTICATOR_ADDRESS = "127.0.0.1";
export const AUTHENTICATOR_PORT = 21362;
/** Its configuration, read-only in its pod. */
export const AUTHENTICATOR_CONFIG_DIR = "/etc/cilium-cluster/aws-iam-authenticator";
/** Its serving key and certificate (`key.pem`, `cert.pem`, the names it loads), owned by its user. */
export const AUTHENTICATOR_STATE_DIR = "/var/lib/cilium-cluster/aws-iam-authenticator";
/** The user it runs as, who alone reads its key (kOps's uid). */
export const AUTHENTICATOR_UID = 10000;
/** The static pod's manifest until the bootstrap installs it in kubeadm's manifests directory. */
export const AUTHENTICATOR_POD_FILE = `${AUTHENTICATOR_CONFIG_DIR}/pod.yaml`;

const CONFIG_FILE = `${AUTHENTICATOR_CONFIG_DIR}/config.yaml`;
const IN_POD_CONFIG_DIR = "/etc/aws-iam-authenticator";
const IN_POD_STATE_DIR = "/var/aws-iam-authenticator";

/**
 * The mapping: the admin role (as mappedAdminRoleArn gives it) to `admin:` and the session name as given
 * (`{{SessionName}}` would turn an Identity Center user's `@` into `-`), which `npm run kubeconfig` sets from
 * the caller's own AWS identity.
 */
function authenticatorConfig(clusterName: string, adminRoleArn: string, adminGroup: string): string {
  return stringify({
    clusterID: clusterName,
    server: {
      mapRoles: [
        {
          roleARN: adminRoleArn,
          username: "admin:{{SessionNameRaw}}",
          groups: [adminGroup],
        },
      ],
    },
  });
}

/** Its static pod; PARTITION is the admin role's, whose STS host names alone it accepts in a token. */
function authenticatorPod(partition: string): string {
  const https = { scheme: "HTTPS", host: AUTHENTICATOR_ADDRESS, port: AUTHENTICATOR_PORT, path: "/healthz" };
  return stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "aws-iam-authenticator",
      namespace: "kube-system",
      labels: { component: "aws-iam-authenticator", tier: "control-plane" },
    },
    spec: {
      hostNetwork: true,
      priorityClassName: "system-node-critical",
      securityContext: {
        runAsUser: AUTHENTICATOR_UID,
        runAsGroup: AUTHENTICATOR_UID,
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      },
      containers: [
        {
          name: "aws-iam-authenticator",
          image: AWS_IAM_AUTHENTICATOR_RELEASE.image,
          args: [
            "server",
            `--config=${IN_POD_CONFIG_DIR}/config.yaml`,
            `--state-dir=${IN_POD_STATE_DIR}`,
            `--address=${AUTHENTICATOR_ADDRESS}`,
            `--port=${AUTHENTICATOR_PORT}`,
            `--partition=${partition}`,
            // The bootstrap wrote the API server's webhook kubeconfig before the API server started.
            "--kubeconfig-pregenerated=true",
          ],
          resources: { requests: { cpu: "10m", memory: "20Mi" }, limits: { memory: "64Mi" } },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          },
          livenessProbe: { httpGet: https, initialDelaySeconds: 10, periodSeconds: 10 },
          volumeMounts: [
            { name: "config", mountPath: IN_POD_CONFIG_DIR, readOnly: true },
            { name: "state", mountPath: IN_POD_STATE_DIR, readOnly: true },
          ],
        },
      ],
      volumes: [
        { name: "config", hostPath: { path: AUTHENTICATOR_CONFIG_DIR, type: "Directory" } },
        { name: "state", hostPath: { path: AUTHENTICATOR_STATE_DIR, type: "Directory" } },
      ],
    },
  });
}

/**
 * The files user data installs on a control-plane node for the authenticator, by path: ADMIN_ROLE_ARN mapped
 * to ADMIN_GROUP, the group kubeadm binds to `cluster-admin`.
 */
export function authenticatorFiles(
  clusterName: string,
  adminRoleArn: string,
  adminGroup: string,
): Record<string, string> {
  return {
    [CONFIG_FILE]: authenticatorConfig(clusterName, adminRoleArn, adminGroup),
    [AUTHENTICATOR_POD_FILE]: authenticatorPod(adminRoleArn.split(":")[1]),
  };
}
