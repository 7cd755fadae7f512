# join-credential.sh: a worker's credential for its own name, which the control plane issues to this instance
# alone (bootstrap/node-credentials.sh): its client certificate and key read from the instance's own SSM
# parameter, which the instance role may read only for this instance (a tag condition on aws:userid), with the
# cluster's CA certificate (CLUSTER_CA_PARAMETER, which the node that created the cluster stored) and the API's address, in a kubeconfig as kubeadm writes one.
# The issuer looks for new instances every NODE_CREDENTIALS_INTERVAL seconds once the API answers, so the
# parameter may not exist yet: read again, NODE_CREDENTIAL_WAIT_TRIES times, as often as the issuer looks; then
# the run fails, and systemd starts it again.

# join_credential: this instance's credential for kubeadm.sh's join, a kubeconfig, on standard output.
join_credential() {
  local id pem ca certificate key
  id=$(imds instance-id) || return 1
  pem=$(BOOTSTRAP_TRIES="$NODE_CREDENTIAL_WAIT_TRIES" BOOTSTRAP_RETRY_DELAY="$NODE_CREDENTIALS_INTERVAL" \
    BOOTSTRAP_RETRY_MAX_DELAY="$NODE_CREDENTIALS_INTERVAL" secure_parameter "$NODE_CREDENTIALS_PREFIX$id") || return 1
  ca=$(secure_parameter "$CLUSTER_CA_PARAMETER") || return 1
  certificate=$(sed -n '/-BEGIN CERTIFICATE-/,/-END CERTIFICATE-/p' <<<"$pem" | base64 -w0)
  key=$(sed -n '/-BEGIN [A-Z ]*PRIVATE KEY-/,/-END [A-Z ]*PRIVATE KEY-/p' <<<"$pem" | base64 -w0)
  if [ -z "$certificate" ] || [ -z "$key" ]; then
    log "the credential of instance $id holds no certificate and key"
    return 1
  fi
  cat <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: $CLUSTER_NAME
  cluster:
    server: https://$API_ENDPOINT:$API_PORT
    certificate-authority-data: $(base64 -w0 <<<"$ca")
users:
- name: node
  user:
    client-certificate-data: $certificate
    client-key-data: $key
contexts:
- name: node@$CLUSTER_NAME
  context:
    cluster: $CLUSTER_NAME
    user: node
current-context: node@$CLUSTER_NAME
KUBECONFIG
}
