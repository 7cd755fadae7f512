# node-credentials.sh: each node joins with a credential for its own name and no other, never a secret every
# node can read. A credential is a kubeconfig with a client certificate for `system:node:<name>` in the group
# `system:nodes`, signed by the cluster CA with kubeadm's own `kubeadm kubeconfig user`, valid
# NODE_CREDENTIAL_MINUTES. kubeadm join takes it as its discovery file; the kubelet then requests its own
# certificate with it, which the controller manager's approver grants only for the requester's own name
# (kubeadm's `kubeadm:node-autoapprove-certificate-rotation`). A control-plane node holds the CA and signs its
# own; a worker's certificate and key are signed here, by the control plane, for the name EC2 gives its
# instance, and written to the instance's own SSM parameter (NODE_CREDENTIALS_PREFIX<instance id>), tagged
# with the instance role session's `aws:userid` (<role id>:<instance id>), the only caller IAM lets read it;
# the worker makes the kubeconfig (join-credential.sh). Only the certificate and key: a whole kubeconfig, the
# CA's certificate in it, passes the 4,096 characters of a standard parameter. kOps's kops-controller makes
# the same promise from the instance's AWS identity.

# mint_node_credential NAME: the credential of the node NAME, on standard output.
mint_node_credential() {
  local config status=0
  config=$(mktemp)
  kubeadm_config kubeadm_init_configuration >"$config" || status=$?
  if [ "$status" -eq 0 ]; then
    kubeadm kubeconfig user --config "$config" --client-name "system:node:$1" --org system:nodes \
      --validity-period "${NODE_CREDENTIAL_MINUTES:-60}m" || status=$?
  fi
  rm -f "$config"
  return "$status"
}

# node_certificate NAME: the client certificate and key of the node NAME's credential, PEM, on standard
# output: what a worker's parameter holds.
node_certificate() {
  local credential field
  credential=$(mint_node_credential "$1") || return 1
  for field in client-certificate-data client-key-data; do
    awk -v field="$field:" '$1 == field { print $2 }' <<<"$credential" | base64 -d || return 1
  done
}

# join_credential: a control-plane node's credential for its own name (kubeadm.sh's join), signed with the CA
# it fetched.
join_credential() {
  local name
  name=$(node_name) || return 1
  mint_node_credential "$name"
}

# credential_work NODES ISSUED: what the issuer does, one "issue ID NAME" or "delete PARAMETER" a line, with
# the cluster's worker instances on standard input ("ID NAME" a line, NAME EC2's private DNS name), NODES the
# cluster's Node names and ISSUED the parameters under NODE_CREDENTIALS_PREFIX, one a line each. An instance
# with no Node and no parameter gets one; a parameter whose instance has a Node, or is gone, is deleted. Once
# its Node exists an instance gets none again, whatever the Node's state (a credential readable from its
# instance metadata while it serves pods is one more way to its identity): a worker whose join stopped after
# its Node registered is abandoned at its join deadline and replaced. An instance EC2 has not named yet (no
# private DNS name before it runs) waits a round.
credential_work() {
  local nodes=$1 issued=$2 id name parameter
  declare -A waiting=()
  while read -r id name; do
    if [ -z "$id" ] || [ -z "$name" ] || [ "$name" = None ]; then continue; fi
    name=$(tr '[:upper:]' '[:lower:]' <<<"$name")
    if grep -qxF "$name" <<<"$nodes"; then continue; fi
    waiting[$id]=1
    if ! grep -qxF "$NODE_CREDENTIALS_PREFIX$id" <<<"$issued"; then echo "issue $id $name"; fi
  done
  while read -r parameter; do
    if [ -n "$parameter" ] && [ -z "${waiting[${parameter#"$NODE_CREDENTIALS_PREFIX"}]:-}" ]; then
      echo "delete $parameter"
    fi
  done <<<"$issued"
}

# worker_instances: the cluster's worker instances that are starting or running, "ID NAME" a line.
worker_instances() {
  aws ec2 describe-instances --region "$REGION" --output text \
    --filters "Name=tag:$CLUSTER_TAG,Values=$CLUSTER_NAME" "Name=tag:$NODE_TAG,Values=1" \
    "Name=instance-state-name,Values=pending,running" \
    --query 'Reservations[].Instances[].[InstanceId,PrivateDnsName]'
}

# issued_credentials: the parameters under NODE_CREDENTIALS_PREFIX, one a line (names only: nothing decrypted).
issued_credentials() {
  aws ssm get-parameters-by-path --region "$REGION" --path "${NODE_CREDENTIALS_PREFIX%/}" \
    --query 'Parameters[].Name' --output text | tr '\t' '\n'
}

# issue_node_credentials (node-credentials.service, every NODE_CREDENTIALS_INTERVAL seconds on each
# control-plane node): a credential for every worker instance that waits for one; the parameters no instance
# waits for, deleted.
# Two control-plane nodes issuing for the same instance race on the parameter's creation (no --overwrite):
# the second's fails, and the first's stands.
issue_node_credentials() {
  local instances nodes issued work action target name role credential
  # The parameters first: one another control-plane node creates after this look is not deleted for an
  # instance this round has not seen yet.
  issued=$(issued_credentials) || return 1
  instances=$(worker_instances) || return 1
  nodes=$(kubectl_admin get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}') || return 1
  work=$(credential_work "$nodes" "$issued" <<<"$instances")
  while read -r action target name; do
    case "$action" in
    issue)
      # The instance's role session is `<role id>:<instance id>` (IAM's aws:userid for an instance role).
      if [ -z "${role:-}" ]; then
        role=$(aws iam get-role --role-name "$NODE_ROLE_NAME" --query Role.RoleId --output text) || return 1
      fi
      credential=$(node_certificate "$name") || return 1
      if put_secure_parameter "$NODE_CREDENTIALS_PREFIX$target" "$credential" \
        --tags "Key=$NODE_CREDENTIAL_SESSION_TAG,Value=$role:$target"; then
        log "issued instance $target its credential as node $name"
      fi
      ;;
    delete)
      aws ssm delete-parameter --region "$REGION" --name "$target" >/dev/null 2>&1 || true
      ;;
    esac
  done <<<"$work"
}

# retire_bootstrap_tokens (a step of every control-plane node's bootstrap, after the join): kubeadm init makes
# a bootstrap token, and a ClusterRoleBinding (kubeadm:node-autoapprove-bootstrap) that has any holder of one
# get a client certificate approved for any node name. Nothing here joins with a token: every token and that
# binding go, so only a node's own credential joins. kubeadm's other bindings stay: the kubelet's approval of
# its own name's certificates (kubeadm:node-autoapprove-certificate-rotation), the nodes' reads of kubeadm's
# and the kubelet's configuration.
retire_bootstrap_tokens() {
  local admin="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" tokens token
  tokens=$(kubeadm token list --kubeconfig "$admin" -o jsonpath='{.token}{"\n"}') || return 1
  for token in $tokens; do
    kubeadm token delete "${token%%.*}" --kubeconfig "$admin" >/dev/null || return 1
  done
  kubectl_admin delete clusterrolebinding kubeadm:node-autoapprove-bootstrap --ignore-not-found >/dev/null
}

# issue_node_credentials_while_up (node-credentials.service): issue_node_credentials every
# NODE_CREDENTIALS_INTERVAL seconds; a round that fails (the API or AWS not answering) is tried again next time.
issue_node_credentials_while_up() {
  while true; do
    issue_node_credentials || log "issuing node credentials failed; again in ${NODE_CREDENTIALS_INTERVAL}s"
    sleep "$NODE_CREDENTIALS_INTERVAL"
  done
}
