//go:build tools

// Cilium's operator for AWS ENI IPAM (built with -tags ipam_provider_aws, as Cilium's Makefile builds
// operator-aws), which the box runs against the AWS emulator.
package tools

import (
	_ "github.com/cilium/cilium/operator"
)
