//go:build tools

// The AWS cloud controller manager the box runs against the AWS emulator: v1.35.3, the release of the 1.35
// line the Go module proxy serves (the program deploys v1.35.0, whose module the proxy does not serve).
package tools

import (
	_ "k8s.io/cloud-provider-aws/cmd/aws-cloud-controller-manager"
)
