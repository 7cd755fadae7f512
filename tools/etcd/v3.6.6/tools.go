//go:build tools

// The commands scripts/build-kubernetes.js builds; importing them keeps them, and their dependencies, in go.mod.
package tools

import (
	_ "go.etcd.io/etcd/etcdctl/v3"
	_ "go.etcd.io/etcd/etcdutl/v3"
	_ "go.etcd.io/etcd/server/v3"
)
