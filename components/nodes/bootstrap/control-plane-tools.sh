# control-plane-tools.sh: the control-plane tools bundle (etcd membership, the init record, its volume,
# backups) comes from SSM, not in user data, where it would take half of the control plane's headroom
# (controlPlaneState.ts). It is stored in CONTROL_PLANE_TOOLS_PARTS parameters (controlPlaneTools.ts), joined
# here in order, and must match the SHA-256 this user data carries (a node runs only the bundle its template
# names); the bootstrap then sources it.

# control_plane_tools_encoded: the parts, joined: control-plane-tools, control-plane-tools-1, ...
control_plane_tools_encoded() {
  local part
  secret control-plane-tools
  for ((part = 1; part < CONTROL_PLANE_TOOLS_PARTS; part++)); do secret "control-plane-tools-$part"; done
}

# tools_environment: the bootstrap variables the bundle's functions read, for the units that run them
# (EnvironmentFile=; systemd takes double-quoted values with spaces). A test keeps the list complete.
tools_environment() {
  local name
  for name in CLUSTER_NAME KUBERNETES_VERSION REGION SECRETS_PREFIX INIT_RECORD BACKUP_BUCKET PRIVATE_ZONE_ID ETCD_MEMBERS; do
    printf '%s="%s"\n' "$name" "${!name}"
  done
}

fetch_control_plane_tools() {
  local path=/usr/local/lib/cilium-cluster/control-plane-tools
  control_plane_tools_encoded | tr -d '\n' | base64 -d | gunzip | write_file "$path" 0755
  if ! echo "$CONTROL_PLANE_TOOLS_SHA256  ${BOOTSTRAP_ROOT:-}$path" | sha256sum --check --quiet; then
    log "the control-plane tools in SSM are not the ones this launch template names"
    return 1
  fi
  tools_environment | write_file /etc/cilium-cluster/control-plane-tools.env
  # shellcheck source=/dev/null
  source "${BOOTSTRAP_ROOT:-}$path"
}
