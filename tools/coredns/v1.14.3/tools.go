//go:build tools

// CoreDNS for the box's image of registry.k8s.io/coredns/coredns: kubeadm 1.35 pins v1.13.1, which the Go
// module proxy does not serve; v1.14.3 is the nearest release it does. cmd/coredns is CoreDNS's own main with
// only the plugins kubeadm's Corefile uses.
package tools

import (
	_ "tools-coredns/cmd/coredns"
)
