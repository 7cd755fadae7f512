# parameters.sh: the control plane's own parameters in SSM. It writes, under the cluster's key, the workers'
# credentials to join, the Secrets encryption keys and the cluster's shared keys; in the clear, the CA's
# certificate; and reads those it creates, which may not exist yet. Workers write no parameter.

# parameter_or_none NAME [ARGS...]: the parameter's value (ARGS: --with-decryption), or "none" when it does not
# exist. Fails, saying why, when SSM cannot say: never taken for "none", which would make what exists again.
parameter_or_none() {
  local name=$1 errors value status=0
  shift
  errors=$(mktemp)
  value=$(aws ssm get-parameter --region "$REGION" --name "$name" "$@" --query Parameter.Value --output text 2>"$errors") ||
    status=$?
  if [ "$status" -eq 0 ]; then
    printf '%s\n' "$value"
  elif grep -q ParameterNotFound "$errors"; then
    echo none
    status=0
  else
    log "cannot read $name: $(cat "$errors")"
  fi
  rm -f "$errors"
  return "$status"
}

# delete_parameter NAME: the parameter NAME deleted; one that does not exist counts as deleted (a run that
# deleted it and stopped before it went on). Fails, saying why, when SSM refuses or does not answer.
delete_parameter() {
  local errors status=0
  errors=$(mktemp)
  aws ssm delete-parameter --region "$REGION" --name "$1" 2>"$errors" || status=$?
  if [ "$status" -ne 0 ] && grep -q ParameterNotFound "$errors"; then status=0; fi
  if [ "$status" -ne 0 ]; then log "cannot delete $1: $(cat "$errors")"; fi
  rm -f "$errors"
  return "$status"
}

# put_parameter TYPE NAME VALUE [ARGS...]: VALUE to the parameter NAME, a String or a SecureString under the
# cluster's key (SECRETS_KEY), ARGS added (--overwrite). VALUE goes through a file only root reads (the AWS
# CLI's file://), never a command line, which every user of the node could read in ps (a function's arguments
# are not one).
put_parameter() {
  local type=$1 name=$2 value=$3 file status=0 key=()
  shift 3
  if [ "$type" = SecureString ]; then key=(--key-id "$SECRETS_KEY"); fi
  file=$(mktemp)
  printf '%s' "$value" >"$file"
  aws ssm put-parameter --region "$REGION" --name "$name" --type "$type" "${key[@]}" --value "file://$file" "$@" \
    >/dev/null || status=$?
  rm -f "$file"
  return "$status"
}

# put_secure_parameter NAME VALUE [ARGS...]: put_parameter's SecureString.
put_secure_parameter() { put_parameter SecureString "$@"; }
