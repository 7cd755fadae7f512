/**
 * The API server's hardening, as kubeadm's ClusterConfiguration passes it and the files user data installs
 * on control-plane nodes (API_SERVER_CONFIG_DIR, mounted read-only into the API server's static pod):
 *
 * - Secrets encrypted at rest (`--encryption-provider-config`), with keys only the control plane reads
 *   (bootstrap/encryption.sh writes the file at boot), reloaded when the file changes, for key rotation;
 * - Pod Security Admission's cluster-wide defaults (`--admission-control-config-file`): `podSecurity.enforce`
 *   enforced, `podSecurity.warn` warned and audited, `kube-system` exempt: every add-on the program deploys
 *   runs there, and the Cilium agent, the EBS CSI node plugin and kube-proxy need privileges no level but
 *   `privileged` allows;
 * - anonymous requests only to the health checks (`--authentication-config`),
 *   from Kubernetes 1.32, where the AuthenticationConfiguration's `anonymous` field is on by default (KEP-4633:
 *   beta in 1.32, `v1` from 1.34); 1.30 and 1.31 keep the API server's default, anonymous requests everywhere,
 *   which RBAC then judges;
 * - an audit log (`--audit-policy-file`), rotated by the API server;
 * - the admins' tokens checked by aws-iam-authenticator on the same node (`--authentication-token-webhook-config-file`,
 *   components/nodes/authenticator.ts), in the webhook's v1beta1 TokenReview, the only version it serves.
 *
 * Pure.
 */
import type { PodSecurityLevel } from "../../config/types";
import {
  API_SERVER_CONFIG_DIR,
  AUDIT_LOG_DIR,
  AUTHENTICATOR_WEBHOOK_FILE,
  ENCRYPTION_CONFIG_FILE,
  KUBERNETES_DIR,
} from "./nodeFacts";

/** The levels the PodSecurity admission plugin applies to a namespace that sets none of its own labels. */
interface PodSecurityDefaults {
  enforce: PodSecurityLevel;
  warn: PodSecurityLevel;
}

/** Namespaces Pod Security Admission leaves alone: the add-ons' (kubeadm's, Cilium's, the AWS add-ons'). */
const POD_SECURITY_EXEMPT_NAMESPACES = ["kube-system"];

/**
 * What an anonymous request may reach: the probes of kubeadm's static pod (/livez, /readyz) and the API load
 * balancer's health check (/readyz), /healthz for older checkers. Not kubeadm's `cluster-info` ConfigMap:
 * nodes join with a credential of their own as the discovery file (bootstrap/node-credentials.sh), never
 * with a bootstrap token's discovery. Every other anonymous request is refused (401).
 */
const ANONYMOUS_PATHS = ["/livez", "/readyz", "/healthz"];

const AUDIT_POLICY_FILE = `${API_SERVER_CONFIG_DIR}/audit-policy.yaml`;
const ADMISSION_FILE = `${API_SERVER_CONFIG_DIR}/admission.yaml`;
const AUTHENTICATION_FILE = `${API_SERVER_CONFIG_DIR}/authentication.yaml`;
/** The API server's own rotation of its audit log: at most 100 MB a file, 5 old files, none older than 7 days. */
const AUDIT_LOG_ROTATION = { "audit-log-maxsize": "100", "audit-log-maxbackup": "5", "audit-log-maxage": "7" };

function admissionConfiguration(podSecurity: PodSecurityDefaults): Record<string, unknown> {
  return {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AdmissionConfiguration",
    plugins: [
      {
        name: "PodSecurity",
        configuration: {
          apiVersion: "pod-security.admission.config.k8s.io/v1",
          kind: "PodSecurityConfiguration",
          defaults: {
            enforce: podSecurity.enforce,
            "enforce-version": "latest",
            audit: podSecurity.warn,
            "audit-version": "latest",
            warn: podSecurity.warn,
            "warn-version": "latest",
          },
          exemptions: { usernames: [], runtimeClasses: [], namespaces: POD_SECURITY_EXEMPT_NAMESPACES },
        },
      },
    ],
  };
}

/** The minor from which anonymous requests are limited to ANONYMOUS_PATHS. */
const ANONYMOUS_PATHS_FROM_MINOR = 32;

function authenticationConfiguration(minor: number): Record<string, unknown> {
  return {
    apiVersion: `apiserver.config.k8s.io/${minor >= 34 ? "v1" : "v1beta1"}`,
    kind: "AuthenticationConfiguration",
    anonymous: { enabled: true, conditions: ANONYMOUS_PATHS.map((path) => ({ path })) },
  };
}

/**
 * Metadata (who, what, when, never the body) for Secrets, ConfigMaps and service-account tokens; the request
 * and response of every change to RBAC and of certificate requests; nothing for health checks and for the
 * high-volume, low-value traffic of leases (node heartbeats, leader election) and events; metadata for the rest.
 */
const auditPolicy = {
  apiVersion: "audit.k8s.io/v1",
  kind: "Policy",
  omitStages: ["RequestReceived"],
  rules: [
    { level: "None", nonResourceURLs: ["/livez*", "/readyz*", "/healthz*", "/version"] },
    {
      level: "None",
      verbs: ["get", "update", "watch"],
      resources: [{ group: "coordination.k8s.io", resources: ["leases"] }],
    },
    { level: "None", resources: [{ group: "", resources: ["events"] }, { group: "events.k8s.io" }] },
    {
      level: "Metadata",
      resources: [
        { group: "", resources: ["secrets", "configmaps", "serviceaccounts/token"] },
        { group: "authentication.k8s.io", resources: ["tokenreviews"] },
      ],
    },
    {
      level: "RequestResponse",
      verbs: ["create", "update", "patch", "delete", "deletecollection"],
      resources: [{ group: "rbac.authorization.k8s.io" }, { group: "certificates.k8s.io" }],
    },
    { level: "Metadata" },
  ],
};

/**
 * The files, by path, user data installs on a control-plane node of a Kubernetes minor (the encryption file
 * is the bootstrap's).
 */
export function apiServerConfigFiles(
  minor: number,
  podSecurity: PodSecurityDefaults,
): Record<string, Record<string, unknown>> {
  return {
    [ADMISSION_FILE]: admissionConfiguration(podSecurity),
    ...(minor >= ANONYMOUS_PATHS_FROM_MINOR ? { [AUTHENTICATION_FILE]: authenticationConfiguration(minor) } : {}),
    [AUDIT_POLICY_FILE]: auditPolicy,
  };
}

/** The cluster CA's certificate where kubeadm writes it, in the API server's pod too (its pki mount). */
const CLUSTER_CA_CERTIFICATE = `${KUBERNETES_DIR}/pki/ca.crt`;

/**
 * The API server's flags for them, and its check of the kubelets' serving certificates against the cluster CA,
 * which signs them (bootstrap/kubelet-serving.sh).
 */
export function apiServerArgs(minor: number): Record<string, string> {
  return {
    "kubelet-certificate-authority": CLUSTER_CA_CERTIFICATE,
    "encryption-provider-config": ENCRYPTION_CONFIG_FILE,
    "encryption-provider-config-automatic-reload": "true",
    "admission-control-config-file": ADMISSION_FILE,
    ...(minor >= ANONYMOUS_PATHS_FROM_MINOR ? { "authentication-config": AUTHENTICATION_FILE } : {}),
    "audit-policy-file": AUDIT_POLICY_FILE,
    "authentication-token-webhook-config-file": AUTHENTICATOR_WEBHOOK_FILE,
    "authentication-token-webhook-version": "v1beta1",
    "audit-log-path": `${AUDIT_LOG_DIR}/audit.log`,
    ...AUDIT_LOG_ROTATION,
  };
}

/** The static pod's volumes for them: the configuration read-only, the log's directory writable. */
export const API_SERVER_VOLUMES = [
  {
    name: "cilium-cluster-config",
    hostPath: API_SERVER_CONFIG_DIR,
    mountPath: API_SERVER_CONFIG_DIR,
    readOnly: true,
    pathType: "Directory",
  },
  {
    name: "audit-log",
    hostPath: AUDIT_LOG_DIR,
    mountPath: AUDIT_LOG_DIR,
    readOnly: false,
    pathType: "DirectoryOrCreate",
  },
];
