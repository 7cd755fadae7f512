// CoreDNS with only the plugins kubeadm's Corefile names (cmd/kubeadm/app/phases/addons/dns/manifests.go in
// k8s.io/kubernetes), assembled the way CoreDNS documents for a build without its plugin.cfg ("Build with
// external golang source code", coredns.io/2017/07/25/compile-time-enabling-or-disabling-plugins). Every
// plugin would pull in the Azure, Google Cloud, Datadog and AWS SDKs: four minutes of a cold build, for
// plugins the box never configures.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

// Those plugins in plugin.cfg's order, which is the order a query passes through them.
func init() {
	dnsserver.Directives = []string{
		"reload", "ready", "health", "prometheus", "errors", "loadbalance", "cache", "kubernetes", "loop", "forward",
	}
}

func main() {
	coremain.Run()
}
