//go:build tools

// The command scripts/build-kubernetes.js builds; importing it keeps it, and its dependencies, in go.mod.
package tools

import _ "k8s.io/kubernetes/cmd/kubeadm"
