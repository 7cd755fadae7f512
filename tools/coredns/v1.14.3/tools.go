//go:build tools

// CoreDNS for the box's image of registry.k8s.io/coredns/coredns: kubeadm 1.35 pins v1.13.1, which the Go
// module proxy does not serve; v1.14.3 is the nearest release it does.
package tools

import (
	_ "github.com/coredns/coredns"
)
