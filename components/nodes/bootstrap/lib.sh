# lib.sh: what every other module uses. Functions only: nothing runs when this file is sourced.
# IMDS_ENDPOINT and BOOTSTRAP_ROOT let tests run the bootstrap against a fake metadata service and a scratch
# directory; on an instance they are unset.

# Everything goes to standard error, which systemd sends to the journal (journalctl -u cilium-cluster-bootstrap).
log() { echo "bootstrap: $*" >&2; }

# step NAME FUNCTION [ARGS...]: runs one step of main, its name in the log. (Not `if ! "$@"`: errexit does
# not apply inside a condition, so a failing command in the step would not stop it.)
step() {
  local name="$1"
  shift
  log "step $name: start"
  "$@"
  log "step $name: done"
}

# on_exit: the EXIT trap of main; a failure is logged below the step that did not finish.
on_exit() {
  local status=$?
  if [ "$status" -ne 0 ]; then log "failed with status $status in the step started last; systemd runs the bootstrap again"; fi
}

# retry PROGRAM ARGS...: runs PROGRAM until it succeeds, at most BOOTSTRAP_TRIES times, waiting
# BOOTSTRAP_RETRY_DELAY seconds between tries, doubled after each up to BOOTSTRAP_RETRY_MAX_DELAY (their
# defaults in the header: components/timeouts.ts). Only the successful try's output reaches standard output.
# PROGRAM is a program, or a function that returns every failure itself: errexit does not apply inside a
# condition, so a function that counts on it would go on past a failing command.
retry() {
  local try=1 delay="$BOOTSTRAP_RETRY_DELAY" max="$BOOTSTRAP_RETRY_MAX_DELAY" out
  until out=$("$@"); do
    if [ "$try" -ge "$BOOTSTRAP_TRIES" ]; then
      log "gave up after $try tries: ${*:1:2}"
      return 1
    fi
    log "try $try of ${*:1:2} failed; again in ${delay}s"
    sleep "$delay"
    try=$((try + 1))
    delay=$((delay * 2 > max ? max : delay * 2))
  done
  if [ -n "$out" ]; then printf '%s\n' "$out"; fi
}

# imds PATH: one instance-metadata value (IMDSv2: a session token first).
imds() {
  local endpoint="${IMDS_ENDPOINT:-http://169.254.169.254}" token
  token=$(retry curl -sSf --max-time 10 -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 300" "$endpoint/latest/api/token")
  retry curl -sSf --max-time 10 -H "X-aws-ec2-metadata-token: $token" "$endpoint/latest/meta-data/$1"
}

# node_name: this node's Node, as kubeadm registers it (nodeRegistration.name): EC2's private DNS name of the
# instance, lower-cased as Kubernetes names are, whatever the host name (Ubuntu's is the short form).
node_name() {
  local name
  name=$(imds local-hostname) || return 1
  if [ -z "$name" ]; then
    log "instance metadata names no local-hostname"
    return 1
  fi
  tr '[:upper:]' '[:lower:]' <<<"$name"
}

# provider_id: the instance as the AWS cloud controller manager names it, aws:///ZONE/INSTANCE-ID.
provider_id() {
  local zone id
  zone=$(imds placement/availability-zone) || return 1
  id=$(imds instance-id) || return 1
  echo "aws:///$zone/$id"
}

# write_file PATH [MODE]: standard input to PATH (below BOOTSTRAP_ROOT), creating directories. The file has
# its mode before anything is written, so a key is never readable by others, even for a moment.
write_file() {
  local path="${BOOTSTRAP_ROOT:-}$1"
  mkdir -p "$(dirname "$path")"
  install -m "${2:-0644}" /dev/null "$path"
  cat >"$path"
}

# secure_parameter NAME: a parameter from SSM, a SecureString decrypted, read with the instance role.
secure_parameter() {
  retry aws ssm get-parameter --region "$REGION" --name "$1" --with-decryption --query Parameter.Value --output text
}
