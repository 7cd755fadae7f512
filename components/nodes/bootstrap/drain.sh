# drain.sh: whether this node has been drained. aws-node-termination-handler drains a terminating node
# (components/drain): it cordons it and evicts its pods, respecting PodDisruptionBudgets, while the group's
# drain hook holds the instance. A control-plane node's etcd member leaves only once that is done
# (control-plane.sh), as the node's own API server, which its etcd member serves, answers the evictions.

# kubectl_admin ARGS...: kubectl with this control-plane node's admin kubeconfig, at its own API server.
kubectl_admin() {
  kubectl --kubeconfig "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" --request-timeout=10s "$@"
}

# node_drained NODE: "yes" once the Node NODE is gone, or cordoned with no pod left on it that a drain
# evicts (kubectl drain leaves DaemonSets' pods and static pods' mirrors) but the termination handler's own
# (app.kubernetes.io/name DRAIN_HANDLER_NAME), which never evicts itself; else "no: " and what holds it
# (not cordoned, or the pods left, namespace/name). A pod that is being deleted is still there. Fails when the
# API does not answer.
node_drained() {
  local node pods
  node=$(kubectl_admin get node "$1" --ignore-not-found -o json) || return 1
  if [ -z "$node" ]; then
    echo yes
    return 0
  fi
  pods=$(kubectl_admin get pods --all-namespaces --field-selector "spec.nodeName=$1" -o json) || return 1
  python3 -c 'import json, sys
node, pods = json.loads(sys.argv[2]), json.load(sys.stdin)["items"]
def stays(pod):
    meta = pod["metadata"]
    return (any(o.get("kind") == "DaemonSet" for o in meta.get("ownerReferences", []))
            or "kubernetes.io/config.mirror" in meta.get("annotations", {})
            or meta.get("labels", {}).get("app.kubernetes.io/name") == sys.argv[1])
held = sorted("{}/{}".format(p["metadata"].get("namespace", ""), p["metadata"]["name"]) for p in pods if not stays(p))
if not node.get("spec", {}).get("unschedulable", False):
    print("no: not cordoned")
elif held:
    print("no: " + " ".join(held))
else:
    print("yes")' "$DRAIN_HANDLER_NAME" "$node" <<<"$pods"
}
