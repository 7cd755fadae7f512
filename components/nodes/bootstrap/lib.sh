# lib.sh: what every other module uses. Functions only: nothing runs when this file is sourced.
# IMDS_ENDPOINT and BOOTSTRAP_ROOT let tests run the bootstrap against a fake metadata service and a scratch
# directory; on an instance they are unset.

log() { echo "bootstrap: $*" >&2; }

# step NAME FUNCTION [ARGS...]: runs one step of main, its name in the log.
step() {
  local name="$1"
  shift
  log "step $name: start"
  "$@"
  log "step $name: done"
}

# imds PATH: one instance-metadata value (IMDSv2: a session token first).
imds() {
  local endpoint="${IMDS_ENDPOINT:-http://169.254.169.254}" token
  token=$(curl -sSf --max-time 10 --retry 5 -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 300" "$endpoint/latest/api/token")
  curl -sSf --max-time 10 --retry 5 -H "X-aws-ec2-metadata-token: $token" "$endpoint/latest/meta-data/$1"
}

# write_file PATH [MODE]: standard input to PATH (below BOOTSTRAP_ROOT), creating directories. The file has
# its mode before anything is written, so a key is never readable by others, even for a moment.
write_file() {
  local path="${BOOTSTRAP_ROOT:-}$1"
  mkdir -p "$(dirname "$path")"
  install -m "${2:-0644}" /dev/null "$path"
  cat >"$path"
}

# secret NAME: one of this node's secrets from SSM, read with the instance role.
secret() {
  aws ssm get-parameter --region "$REGION" --name "$SECRETS_PREFIX$1" --with-decryption \
    --query Parameter.Value --output text
}
