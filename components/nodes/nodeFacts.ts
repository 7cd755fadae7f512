/**
 * Paths and names on a node that the program and the node's bash both use, written once: bash reads them
 * from the bootstrap script's header (shellHeader.ts), never from a literal of its own.
 */

/** kubeadm's directory: its configuration, certificates (`pki/`), kubeconfigs and static pods' manifests. */
export const KUBERNETES_DIR = "/etc/kubernetes";
/**
 * Where the bootstrap records the node's role (bootstrap/role.sh) before anything else: the add-on apply
 * script (components/k8s/applyScript.ts) reads it.
 */
export const NODE_ROLE_FILE = "/etc/cilium-cluster/node-role";
/**
 * A joining node's credential for its own name (bootstrap/node-credentials.sh), kubeadm join's discovery
 * file: written just before the join, removed right after.
 */
export const JOIN_CREDENTIAL_FILE = `${KUBERNETES_DIR}/join-credential.conf`;
/** The bootstrap's own state on the node. */
const STATE_DIR = "/var/lib/cilium-cluster";
/** Written by the join step right after kubeadm init or join succeeded: what kubeadm_state trusts. */
export const KUBEADM_JOINED_MARKER = `${STATE_DIR}/kubeadm-joined`;
/**
 * Written by run_steps once every step has succeeded, with the config hash: a step that failed after the
 * join (the control plane's services, the launch hook) runs again at the next try.
 */
export const JOINED_MARKER = `${STATE_DIR}/joined`;
/**
 * The etcd leader's record of the members that do not answer: a file per member ID, holding when it was first
 * seen not answering (reconcile_etcd_members). In /run: a reboot forgets it, and the bound starts again.
 */
export const ETCD_UNHEALTHY_DIR = "/run/cilium-cluster/etcd-unhealthy";
/** The annotation of the cluster's kubeadm-config naming the release whose upgrade is finished (upgrade.sh). */
export const UPGRADE_FINISHED_ANNOTATION = "cilium-cluster/upgrade-finished";
/** The annotation of the cluster's kubeadm-config: when an upgrade's node moved it, seconds since the epoch (upgrade.sh). */
export const UPGRADE_MOVED_ANNOTATION = "cilium-cluster/upgrade-moved";
/** Tools the bootstrap installs for itself (etcd's, copied out of the etcd image kubeadm runs). */
export const TOOLS_DIR = "/usr/local/lib/cilium-cluster";
/** The comment on the /etc/hosts line that pins the API's name to a control-plane node's own API server. */
export const API_PIN_MARK = "cilium-cluster-own-api-server";
/**
 * kubeadm's group of cluster administrators, bound to `cluster-admin` by kubeadm init (1.29 and later): the
 * group the authenticator maps the cluster's admin role to (nodes/authenticator.ts), and of the
 * credential a control-plane node mints to upgrade the cluster (bootstrap/upgrade.sh).
 */
export const ADMIN_GROUP = "kubeadm:cluster-admins";
/**
 * The API server's own configuration files (admission, authentication, audit policy, encryption), mounted
 * read-only into its static pod (apiServerConfig.ts).
 */
export const API_SERVER_CONFIG_DIR = `${KUBERNETES_DIR}/apiserver`;
/** The EncryptionConfiguration, written from the cluster's keys at boot (bootstrap/encryption.sh). */
export const ENCRYPTION_CONFIG_FILE = `${API_SERVER_CONFIG_DIR}/encryption.yaml`;
/**
 * The API server's `--authentication-token-webhook-config-file`: its kubeconfig for aws-iam-authenticator on
 * the same node (components/nodes/authenticator.ts), written by bootstrap/authenticator.sh.
 */
export const AUTHENTICATOR_WEBHOOK_FILE = `${API_SERVER_CONFIG_DIR}/authenticator-webhook.yaml`;
/** Where each control-plane node's API server writes its audit log, rotated by the API server itself. */
export const AUDIT_LOG_DIR = "/var/log/kubernetes/audit";
/**
 * aws-node-termination-handler's name: of each of its objects, its account and its pods' `app.kubernetes.io/name`: the chart's, for a
 * release named after the chart. A terminating control-plane node knows the handler's pods by it (the
 * handler never evicts itself: bootstrap/drain.sh).
 */
export const NODE_TERMINATION_HANDLER = "aws-node-termination-handler";
