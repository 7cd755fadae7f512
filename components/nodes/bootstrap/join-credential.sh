# join-credential.sh: a worker's credential for its own name, which the control plane issues to this instance
# alone (bootstrap/node-credentials.sh): read from the instance's own SSM parameter, which the instance role
# may read only for this instance (a tag condition on aws:userid). The issuer looks for new instances every
# NODE_CREDENTIALS_INTERVAL seconds once the API answers, so the parameter may not exist yet: read again,
# NODE_CREDENTIAL_WAIT_TRIES times, as often as the issuer looks; then the run fails, and systemd starts it again.

# worker_join_credential: this instance's credential, on standard output.
worker_join_credential() {
  local id
  id=$(imds instance-id) || return 1
  BOOTSTRAP_TRIES="$NODE_CREDENTIAL_WAIT_TRIES" BOOTSTRAP_RETRY_DELAY="$NODE_CREDENTIALS_INTERVAL" \
    BOOTSTRAP_RETRY_MAX_DELAY="$NODE_CREDENTIALS_INTERVAL" secure_parameter "$NODE_CREDENTIALS_PREFIX$id"
}
