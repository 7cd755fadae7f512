# parameters.sh: what the control plane writes to SSM that only the cluster's key may open (the workers' credentials to join,
# the Secrets encryption keys). Workers write no parameter.

# put_secure_parameter NAME VALUE [ARGS...]: VALUE to the SecureString NAME under the cluster's key
# (SECRETS_KEY), ARGS added (--overwrite). VALUE goes through a file only root reads (the AWS CLI's file://),
# never a command line, which every user of the node could read in ps (a function's arguments are not one).
put_secure_parameter() {
  local name=$1 value=$2 file status=0
  shift 2
  file=$(mktemp)
  printf '%s' "$value" >"$file"
  aws ssm put-parameter --region "$REGION" --name "$name" --type SecureString --key-id "$SECRETS_KEY" \
    --value "file://$file" "$@" >/dev/null || status=$?
  rm -f "$file"
  return "$status"
}
