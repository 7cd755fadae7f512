# encryption.sh: Secrets encrypted at rest in etcd. The API server's EncryptionConfiguration
# (ENCRYPTION_CONFIG_FILE) encrypts them with secretbox (XSalsa20-Poly1305, the local provider Kubernetes
# recommends) under the cluster's encryption keys. The keys are kept in one SSM parameter
# (ENCRYPTION_KEYS_PARAMETER, "NAME SECRET" a line, the first one writing) under the cluster's KMS key, read
# by the control-plane role (no worker) and never in the Pulumi state. The first control-plane node to need them makes
# the first key: put-parameter without --overwrite, which SSM makes atomic, so of two nodes racing one
# creates it and both use that one. Secret values go through files and pipes, never a command line.

# new_encryption_key: one "NAME SECRET" line: a fresh 32-byte key named by the time.
new_encryption_key() {
  local secret
  secret=$(head -c 32 /dev/urandom | base64 -w0)
  printf 'key-%s %s\n' "$(date -u +%Y%m%dT%H%M%SZ)" "$secret"
}

# encryption_keys: the cluster's keys, "NAME SECRET" a line.
encryption_keys() { secure_parameter "$ENCRYPTION_KEYS_PARAMETER"; }

# put_encryption_keys KEYS [--overwrite]: KEYS to the keys parameter.
put_encryption_keys() { put_secure_parameter "$ENCRYPTION_KEYS_PARAMETER" "$@"; }

# encryption_config: the EncryptionConfiguration of the keys on standard input.
encryption_config() {
  local name secret
  printf '%s\n' "apiVersion: apiserver.config.k8s.io/v1" "kind: EncryptionConfiguration" "resources:" \
    "  - resources: [secrets]" "    providers:" "      - secretbox:" "          keys:"
  while read -r name secret; do
    if [ -n "$name" ]; then printf '            - name: %s\n              secret: %s\n' "$name" "$secret"; fi
  done
}

# write_encryption_config: the API server's configuration from the cluster's keys, the first key made when
# there is none. The API server reloads the file when it changes (--encryption-provider-config-automatic-reload),
# so it is replaced whole (a rename), never seen half-written.
write_encryption_config() {
  local keys
  keys=$(parameter_or_none "$ENCRYPTION_KEYS_PARAMETER" --with-decryption) || return 1
  if [ "$keys" = none ]; then
    # Of two nodes racing, the second fails here (ParameterAlreadyExists) and reads the first one's.
    if put_encryption_keys "$(new_encryption_key)"; then log "made the cluster's first encryption key"; fi
    keys=$(encryption_keys)
  fi
  encryption_config <<<"$keys" | write_file "$ENCRYPTION_CONFIG_FILE.new" 0600
  mv "${BOOTSTRAP_ROOT:-}$ENCRYPTION_CONFIG_FILE.new" "${BOOTSTRAP_ROOT:-}$ENCRYPTION_CONFIG_FILE"
}

# rotate_encryption_key STEP: one step of a key rotation (docs/operations.md), run on one control-plane node;
# after each, every control-plane node runs write_encryption_config. `add`: a new key, last, which every API
# server can then read; `promote`: the last key first, so writes use it; `drop`: every key but the first, once
# every Secret has been written again (a dropped key stays in the parameter's history, for restoring a
# snapshot taken before: docs/operations.md).
rotate_encryption_key() {
  local keys
  keys=$(encryption_keys)
  case "$1" in
    add) put_encryption_keys "$keys"$'\n'"$(new_encryption_key)" --overwrite ;;
    promote) put_encryption_keys "$(tail -n 1 <<<"$keys")"$'\n'"$(head -n -1 <<<"$keys")" --overwrite ;;
    drop) put_encryption_keys "$(head -n 1 <<<"$keys")" --overwrite ;;
    *)
      log "rotate_encryption_key add|promote|drop"
      return 1
      ;;
  esac
  log "encryption keys now: $(encryption_keys | cut -d' ' -f1 | tr '\n' ' ')"
}
