//go:build tools

// aws-node-termination-handler in queue mode, which the box runs against the AWS emulator's queue: v1.25.1,
// the release nearest the program's v1.25.5 that the Go module proxy serves (v1.25.2 to v1.25.5 are not).
package tools

import (
	_ "github.com/aws/aws-node-termination-handler/cmd"
)
