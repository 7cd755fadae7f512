//go:build tools

// crictl, packaged as cri-tools in the box's local Kubernetes apt repository (the proxy serves no v1.35).
package tools

import (
	_ "sigs.k8s.io/cri-tools/cmd/crictl"
)
