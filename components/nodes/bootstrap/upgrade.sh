# upgrade.sh: Kubernetes upgrades by replacement, as Cluster API's KubeadmControlPlane does them
# (controlplane/kubeadm/internal/controllers/upgrade.go: the kubeadm-config ConfigMap's ClusterConfiguration
# says the new version, then machines of that version join and the old ones leave). `kubeadm join
# --control-plane` deploys the static pods of the version the cluster's ClusterConfiguration names (the API
# server, controller manager, scheduler, and etcd at kubeadm's pin for it), so the first control-plane node of
# a newer release moves that configuration to its own version before it joins; later ones find the cluster
# at theirs and just join. kubeadm upgrade apply and plan cannot run on that node: they read its Node object
# before any phase (util/config/cluster.go, GetNodeRegistration), which does not exist before it joins.
# kubeadm's addons follow once every control-plane node runs the new version, as kubeadm upgrades them.

# upgrade_mode CLUSTER NODE: what a node of release NODE (X.Y.Z) does with a cluster at CLUSTER.
#   none:    the same release: it joins;
#   upgrade: NODE is a newer patch, or the next minor: it moves the cluster to NODE, then joins;
#   refuse:  NODE is older (never downgrade), or more than one minor newer (kubeadm's version policy).
upgrade_mode() {
  local pattern='^([0-9]+)\.([0-9]+)\.([0-9]+)$' c n
  if [ "$#" -ne 2 ] || [[ ! $1 =~ $pattern ]]; then
    log "upgrade_mode: unknown input: $*"
    return 2
  fi
  c=("${BASH_REMATCH[@]:1}")
  if [[ ! $2 =~ $pattern ]]; then
    log "upgrade_mode: unknown input: $*"
    return 2
  fi
  n=("${BASH_REMATCH[@]:1}")
  if [ "$1" = "$2" ]; then
    echo none
  elif [ "${n[0]}" -ne "${c[0]}" ] || [ "${n[1]}" -lt "${c[1]}" ] || [ "${n[1]}" -gt $((c[1] + 1)) ] ||
    { [ "${n[1]}" -eq "${c[1]}" ] && [ "${n[2]}" -lt "${c[2]}" ]; }; then
    echo refuse
  else
    echo upgrade
  fi
}

# cluster_version KUBECONFIG: the release the cluster's ClusterConfiguration (kubeadm-config) names, X.Y.Z.
cluster_version() {
  local config version
  config=$(retry kubectl --kubeconfig "$1" -n kube-system get configmap kubeadm-config \
    -o jsonpath='{.data.ClusterConfiguration}') || return 1
  version=$(sed -n 's/^kubernetesVersion: *v\{0,1\}//p' <<<"$config")
  if [ -z "$version" ]; then
    log "the cluster's kubeadm-config names no kubernetesVersion"
    return 1
  fi
  echo "$version"
}

# cluster_documents: this group's init configuration without its InitConfiguration document: the upgrade
# signs and uploads the cluster's configuration, not this node's (whose name it has not looked up).
cluster_documents() {
  kubeadm_init_configuration | awk 'BEGIN { RS = "---\n"; ORS = "" }
    !/(^|\n)kind: InitConfiguration\n/ { printf "%s%s", (n++ ? "---\n" : ""), $0 }'
}

# upgrade_cluster: before this control-plane node joins, an older cluster moves to this node's release with
# kubeadm's own phase: upload-config writes this group's ClusterConfiguration (the program's, at this
# release; with kube-proxy disabled it says so, and kubeadm's upgrades keep it away) to kubeadm-config. The
# credential is an admin kubeconfig kubeadm mints from the cluster CA this node holds, valid for an hour, in
# a directory of its own: kubeadm_state takes an admin.conf in KUBERNETES_DIR for a half-done join.
upgrade_cluster() (
  local dir version mode
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  install -m 0600 /dev/null "$dir/kubeadm.yaml"
  kubeadm_config cluster_documents >"$dir/kubeadm.yaml"
  kubeadm kubeconfig user --config "$dir/kubeadm.yaml" --client-name cilium-cluster:upgrade --org "$ADMIN_GROUP" \
    --validity-period 1h >"$dir/admin.conf"
  version=$(cluster_version "$dir/admin.conf")
  mode=$(upgrade_mode "$version" "$KUBERNETES_VERSION")
  case "$mode" in
  none) ;;
  upgrade)
    log "the cluster runs Kubernetes $version: moving its configuration to $KUBERNETES_VERSION before joining"
    kubeadm init phase upload-config kubeadm --config "$dir/kubeadm.yaml" --kubeconfig "$dir/admin.conf"
    ;;
  *)
    log "the cluster runs Kubernetes $version, which a $KUBERNETES_VERSION node does not join (kubeadm upgrades one minor at a time, never down)"
    return 1
    ;;
  esac
)

# addons_current: whether the images of kubeadm's addons (CoreDNS, and kube-proxy where it runs) are those
# kubeadm deploys for this node's release. Not when it cannot tell: kubeadm's own phase then decides.
addons_current() {
  local admin="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" expected deployed image
  expected=$(kubeadm config images list --kubernetes-version "v$KUBERNETES_VERSION") || return 1
  deployed=$(kubectl --kubeconfig "$admin" -n kube-system get deployment/coredns daemonset/kube-proxy \
    --ignore-not-found -o jsonpath='{range .items[*]}{.spec.template.spec.containers[0].image}{"\n"}{end}') || return 1
  while read -r image; do
    if [ -n "$image" ] && ! grep -qxF "$image" <<<"$expected"; then return 1; fi
  done <<<"$deployed"
}

# upgrade_addons (a timer): once the cluster runs this node's release, kubeadm's addon phase brings CoreDNS,
# and kube-proxy unless the ClusterConfiguration disables it, to that release. kubeadm does so only when the
# API server of every control-plane node runs this node's version (cmd/phases/upgrade/addons.go,
# shouldUpgradeAddons): after an upgrade's last old node has left. Nothing runs while they are current.
upgrade_addons() {
  local admin="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" version
  version=$(cluster_version "$admin")
  if [ "$version" != "$KUBERNETES_VERSION" ] || addons_current; then return 0; fi
  kubeadm upgrade node phase addon all --kubeconfig "$admin"
}
