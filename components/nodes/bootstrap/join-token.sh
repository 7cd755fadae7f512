# join-token.sh: the join token nodes read at boot (JOIN_TOKEN_PARAMETER), minted by the control plane with
# kubeadm's own token commands. A token lives JOIN_TOKEN_TTL_HOURS; once the current one has less than
# JOIN_TOKEN_RENEW_HOURS left, or the cluster does not know it, a new one is minted and written under the
# cluster's key (SECRETS_KEY); tokens replaced more than an hour before are deleted. The join-token timer runs
# this hourly on every control-plane node, and the bootstrap once the node has joined: a control plane that
# was down longer than a token lives has a fresh one within the hour of its API answering again.

# join_token_kubeadm ARGS...: `kubeadm token ARGS` as the cluster's admin.
join_token_kubeadm() {
  kubeadm token "$@" --kubeconfig "${BOOTSTRAP_ROOT:-}/etc/kubernetes/admin.conf"
}

# cluster_join_tokens: the cluster's bootstrap tokens, "TOKEN EXPIRES" a line (EXPIRES in RFC 3339).
cluster_join_tokens() {
  join_token_kubeadm list -o jsonpath='{.token}{" "}{.expires}{"\n"}'
}

# join_token_due NOW CURRENT: whether a new token is due (yes or no), with the cluster's tokens on standard
# input (cluster_join_tokens) and NOW in seconds since the epoch: when the cluster does not know CURRENT, or it
# expires within JOIN_TOKEN_RENEW_HOURS.
join_token_due() {
  local now=$1 current=$2 token expires
  while read -r token expires; do
    if [ "$token" = "$current" ] && [ "$(date -u -d "$expires" +%s)" -ge $((now + ${JOIN_TOKEN_RENEW_HOURS:-24} * 3600)) ]; then
      echo no
      return
    fi
  done
  echo yes
}

# stale_join_tokens NOW CURRENT: the tokens to delete, one a line, with the cluster's tokens on standard input:
# every one but CURRENT minted more than an hour before NOW (it expires before a token minted an hour ago
# would), so a node that read the previous token a moment ago still joins with it.
stale_join_tokens() {
  local now=$1 current=$2 token expires
  while read -r token expires; do
    if [ -n "$token" ] && [ "$token" != "$current" ] &&
      [ "$(date -u -d "$expires" +%s)" -lt $((now + (${JOIN_TOKEN_TTL_HOURS:-48} - 1) * 3600)) ]; then
      echo "$token"
    fi
  done
}

# refresh_join_token: a new token when one is due, written to the node parameter; then the stale ones deleted.
refresh_join_token() {
  local now current tokens stale
  now=$(date -u +%s)
  current=$(secure_parameter "$JOIN_TOKEN_PARAMETER")
  tokens=$(cluster_join_tokens)
  if [ "$(join_token_due "$now" "$current" <<<"$tokens")" = yes ]; then
    current=$(join_token_kubeadm create --ttl "${JOIN_TOKEN_TTL_HOURS:-48}h" --description "cilium-cluster join token")
    retry put_secure_parameter "$JOIN_TOKEN_PARAMETER" "$current" --overwrite
    log "minted a join token valid for ${JOIN_TOKEN_TTL_HOURS:-48}h: ${current%%.*}"
  fi
  for stale in $(stale_join_tokens "$now" "$current" <<<"$tokens"); do
    join_token_kubeadm delete "$stale"
    log "deleted the stale join token ${stale%%.*}"
  done
}
