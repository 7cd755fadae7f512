# parameters.sh: what the control plane writes to SSM: under the cluster's key, the workers' credentials to
# join, the Secrets encryption keys and the cluster's shared keys; in the clear, the CA's certificate. Workers
# write no parameter.

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
