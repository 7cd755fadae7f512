//go:build tools

// aws-iam-authenticator's server, the API server's token webhook on every control-plane node, which the box
// runs against the AWS emulator's STS: v0.7.13, the release of the image the program deploys (EKS Distro's
// v0.7.13-eks-1-35-9).
package tools

import (
	_ "sigs.k8s.io/aws-iam-authenticator/cmd/aws-iam-authenticator"
)
