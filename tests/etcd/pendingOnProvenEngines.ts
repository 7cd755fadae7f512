/**
 * Tests of the hand-built etcd tools that fail on etcd 3.6, the version kubeadm 1.35 deploys, every time or
 * on a loaded machine (they passed on Debian's etcd 3.4). The tools are replaced by etcd-manager under the issue named here, not repaired, so
 * each such test is pending under that title until the issue deletes it with the code it tests.
 */
export const PROVEN_ENGINES_ISSUE = "A control plane on proven engines";

export function itFailsOnEtcd36(title: string, fn: Mocha.AsyncFunc): Mocha.Test {
  return it.skip(`${title} [fails on etcd 3.6; pending: ${PROVEN_ENGINES_ISSUE}]`, fn);
}

/** A whole suite whose tests fail on etcd 3.6 in turn, a different one from run to run on a loaded machine. */
export function describeFailsOnEtcd36(title: string, fn: (this: Mocha.Suite) => void): Mocha.Suite | void {
  return describe.skip(`${title} [fails on etcd 3.6; pending: ${PROVEN_ENGINES_ISSUE}]`, fn);
}
