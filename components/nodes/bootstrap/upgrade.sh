# upgrade.sh: Kubernetes upgrades by replacement, as Cluster API's KubeadmControlPlane does them
# (controlplane/kubeadm/internal/controllers/upgrade.go: the kubeadm-config ConfigMap's ClusterConfiguration
# says the new version, then machines of that version join and the old ones leave). `kubeadm join
# --control-plane` deploys the static pods of the version the cluster's ClusterConfiguration names (the API
# server, controller manager, scheduler, and etcd at kubeadm's pin for it), so the first control-plane node of
# a newer release moves that configuration to its own version before it joins; later ones find the cluster
# at theirs and just join. kubeadm upgrade apply and plan cannot run on that node: they read its Node object
# before any phase (util/config/cluster.go, GetNodeRegistration), which does not exist before it joins.
# kubeadm's addons follow once every control-plane node runs the new version, as kubeadm upgrades them.
# An upgrade whose first node fails before it joins (its Node never registered, or deleted with its instance)
# leaves the configuration at a release no control plane runs: a node of the older release moves it back,
# once that node can no longer be joining (UPGRADE_MOVED_ANNOTATION, MOVE_BACK_AFTER_SECONDS).

# upgrade_mode CLUSTER NODE: what a node of release NODE (X.Y.Z) does with a cluster at CLUSTER.
#   none:    the same release: it joins;
#   upgrade: NODE is a newer patch, or the next minor: it moves the cluster to NODE, then joins;
#   back:    CLUSTER is one such step up from NODE: the configuration an upgrade's first node moved, which a
#            node of the release it moved from moves back while no control plane of a newer release runs
#            (upgrade_cluster);
#   refuse:  NODE is older by more (never downgrade), or more than one minor newer (kubeadm's version policy).
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
  elif [ "${n[0]}" -ne "${c[0]}" ]; then
    echo refuse
  elif [ "${n[1]}" -lt "${c[1]}" ] || { [ "${n[1]}" -eq "${c[1]}" ] && [ "${n[2]}" -lt "${c[2]}" ]; }; then
    if [ "${c[1]}" -le $((n[1] + 1)) ]; then echo back; else echo refuse; fi
  elif [ "${n[1]}" -gt $((c[1] + 1)) ]; then
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

# newest_control_plane KUBECONFIG: the newest release (X.Y.Z) a control plane of the cluster runs: its
# control-plane Nodes' kubelets, and its API servers' mirror pods, which a joining node's kubelet posts once it
# runs the static pods its join wrote, before kubeadm labels its Node (kubeadm join: control-plane-prepare,
# kubelet-start, etcd-join, then mark-control-plane). Nothing when there is none. The cloud controller deletes
# a dead node's Node, and its mirror pods with it, once its instance is gone.
newest_control_plane() {
  local kubelets images
  kubelets=$(retry kubectl --kubeconfig "$1" get nodes -l node-role.kubernetes.io/control-plane \
    -o jsonpath='{range .items[*]}{.status.nodeInfo.kubeletVersion}{"\n"}{end}') || return 1
  images=$(retry kubectl --kubeconfig "$1" -n kube-system get pods -l component=kube-apiserver,tier=control-plane \
    -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\n"}{end}') || return 1
  { sed -n 's/^v//p' <<<"$kubelets"; sed -n 's/.*:v\([0-9][0-9.]*\)$/\1/p' <<<"$images"; } | sort -V | tail -n 1
}

# kubeadm_config_annotation KUBECONFIG NAME: the annotation NAME of the cluster's kubeadm-config, or nothing.
kubeadm_config_annotation() {
  kubectl --kubeconfig "$1" -n kube-system get configmap kubeadm-config -o json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["metadata"].get("annotations", {}).get(sys.argv[1], ""))' "$2"
}

# moved_recently KUBECONFIG: succeeds while the node of a newer release that moved the cluster (its
# UPGRADE_MOVED_ANNOTATION, set after the move) may still be joining: its mirror pods, which
# newest_control_plane reads, appear only once its kubelet runs the static pods its join wrote, minutes after
# the move. Within MOVE_BACK_AFTER_SECONDS it has joined, or its launch hook has abandoned it.
moved_recently() {
  local moved
  moved=$(kubeadm_config_annotation "$1" "$UPGRADE_MOVED_ANNOTATION") || return 0
  [[ $moved =~ ^[0-9]+$ ]] && [ $(($(date +%s) - moved)) -lt "$MOVE_BACK_AFTER_SECONDS" ]
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
  local dir version mode newest
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
    # After the move, which writes the ConfigMap whole: a node that moves it and never joins holds the older
    # release's nodes off for MOVE_BACK_AFTER_SECONDS, no longer.
    kubectl --kubeconfig "$dir/admin.conf" -n kube-system annotate configmap kubeadm-config --overwrite \
      "$UPGRADE_MOVED_ANNOTATION=$(date +%s)" >/dev/null
    ;;
  back)
    newest=$(newest_control_plane "$dir/admin.conf") || return 1
    if [ -n "$newest" ] && [ "$newest" != "$KUBERNETES_VERSION" ] &&
      [ "$(printf '%s\n' "$newest" "$KUBERNETES_VERSION" | sort -V | tail -n 1)" = "$newest" ]; then
      log "the cluster runs Kubernetes $version, and a control plane of $newest runs: a $KUBERNETES_VERSION node does not join it"
      return 1
    fi
    if moved_recently "$dir/admin.conf"; then
      log "the cluster's configuration names Kubernetes $version, which the node that moved it may still be joining: not moving it back yet"
      return 1
    fi
    log "the cluster's configuration names Kubernetes $version, which no control-plane node runs (an upgrade's first node failed): moving it back to $KUBERNETES_VERSION before joining"
    kubeadm init phase upload-config kubeadm --config "$dir/kubeadm.yaml" --kubeconfig "$dir/admin.conf"
    ;;
  *)
    log "the cluster runs Kubernetes $version, which a $KUBERNETES_VERSION node does not join (kubeadm upgrades one minor at a time, never down)"
    return 1
    ;;
  esac
)

# control_plane_current: whether the API server of every control-plane node runs this node's release, as
# kubeadm's addon phase asks it (cmd/phases/upgrade/addons.go, shouldUpgradeAddons: the kube-apiserver mirror
# pods' images): an upgrade's last old node has left.
control_plane_current() {
  local admin="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" images image
  images=$(kubectl --kubeconfig "$admin" -n kube-system get pods -l component=kube-apiserver,tier=control-plane \
    -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\n"}{end}') || return 1
  if [ -z "$images" ]; then return 1; fi
  while read -r image; do
    if [ "${image##*:}" != "v$KUBERNETES_VERSION" ]; then return 1; fi
  done <<<"$images"
}

# finish_upgrade (a timer): once the cluster and the API server of every control-plane node run this node's
# release, and the cluster's kubeadm-config does not say this release's upgrade finished (its annotation
# UPGRADE_FINISHED_ANNOTATION), the cluster-wide rest of `kubeadm upgrade apply` after its control-plane phase,
# with its own phases, on this joined node: the kubelet configuration (kubelet-config, as the new kubeadm reads
# and defaults it); the bootstrap-token and cluster-info RBAC rules, after which the bootstrap tokens'
# auto-approval that phase writes back goes again (retire_bootstrap_tokens: nothing here joins with a token);
# the post-upgrade tasks (release-specific; in 1.35 a flag dropped from this node's kubelet environment file,
# which a node of the new release never had); the addons: CoreDNS, and kube-proxy unless the
# ClusterConfiguration disables it. Then the annotation, and nothing runs until the next release. A new
# cluster's first run leaves it as it was, and records its release. Each phase is kubeadm's idempotent
# create-or-update: a run that stops half-way is run again whole.
finish_upgrade() {
  local admin="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" version finished phase
  version=$(cluster_version "$admin")
  finished=$(kubeadm_config_annotation "$admin" "$UPGRADE_FINISHED_ANNOTATION") || return 1
  if [ "$version" != "$KUBERNETES_VERSION" ] || [ "$finished" = "$KUBERNETES_VERSION" ] || ! control_plane_current; then
    return 0
  fi
  log "every control-plane node runs Kubernetes $KUBERNETES_VERSION: kubeadm's cluster-wide upgrade phases and its addons"
  for phase in "upload-config kubelet" bootstrap-token post-upgrade; do
    # shellcheck disable=SC2086 # a phase and its sub-phase
    kubeadm upgrade apply phase $phase "v$KUBERNETES_VERSION" --kubeconfig "$admin" || return 1
    if [ "$phase" = bootstrap-token ]; then retire_bootstrap_tokens || return 1; fi
  done
  kubeadm upgrade node phase addon all --kubeconfig "$admin" || return 1
  kubectl --kubeconfig "$admin" -n kube-system annotate configmap kubeadm-config --overwrite \
    "$UPGRADE_FINISHED_ANNOTATION=$KUBERNETES_VERSION" >/dev/null
}
