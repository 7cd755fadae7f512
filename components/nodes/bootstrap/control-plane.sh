# control-plane.sh: what only control-plane nodes do: fetch the cluster's shared keys, create the cluster.

# The cluster's CAs and the service-account key, shared by every control-plane node, from SSM. kubeadm
# init uses them instead of creating its own; kubeadm join --control-plane requires them (no certificateKey).
fetch_control_plane_pki() {
  local f
  secret ca.crt | write_file /etc/kubernetes/pki/ca.crt
  for f in ca.key sa.key front-proxy-ca.key; do secret "$f" | write_file "/etc/kubernetes/pki/$f" 0600; done
  for f in sa.pub front-proxy-ca.crt; do secret "$f" | write_file "/etc/kubernetes/pki/$f"; done
  secret etcd-ca.crt | write_file /etc/kubernetes/pki/etcd/ca.crt
  secret etcd-ca.key | write_file /etc/kubernetes/pki/etcd/ca.key 0600
}

kubeadm_init() {
  if ! claim_init_record; then
    log "another node holds the init record $INIT_RECORD: not creating a second cluster"
    return 1
  fi
  log "no cluster was ever created: creating it"
  kubeadm_config kubeadm_init_configuration | write_file /etc/kubernetes/kubeadm.yaml 0600
  kubeadm init --config "${BOOTSTRAP_ROOT:-}/etc/kubernetes/kubeadm.yaml"
}
