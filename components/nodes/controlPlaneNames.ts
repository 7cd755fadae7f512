/** The init record's name below the control plane's SSM prefix, before the cluster's id (bootstrap/control-plane.sh). */
export const INIT_RECORD_PARAMETER = "initialized";
/** The Secrets encryption keys' name below the control plane's SSM prefix, before the cluster's id (bootstrap/encryption.sh). */
export const ENCRYPTION_KEYS_PARAMETER = "encryption-keys";
