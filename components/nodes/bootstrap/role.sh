# role.sh: records the node's role, which what runs on the node later reads (the add-on apply script of
# addons.applyFrom: controlPlane). Written first: the files kubeadm writes cannot tell a control-plane node
# in the middle of `kubeadm init` from a worker.

record_node_role() {
  printf '%s\n' "$ROLE" | write_file "$NODE_ROLE_FILE"
}
