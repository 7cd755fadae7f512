// The program's timeouts (components/timeouts.ts): pulumi up's wait outlasts a control-plane member's longest
// legitimate replacement, and the node's waits fit inside what bounds them.
import { expect } from "chai";
import { TIMEOUTS } from "../components/timeouts";

/** A `retry` of `tries` tries: the seconds it sleeps in all when every try fails (lib.sh). */
function retrySleeps(tries: number, first: number, max: number): number {
  let total = 0;
  for (let i = 1, delay = first; i < tries; i++, delay = Math.min(delay * 2, max)) total += delay;
  return total;
}

describe("the timeouts table", () => {
  it("lets pulumi up wait out the longest legitimate replacement of a control-plane member", () => {
    const { nodes, drain, etcd, deploy } = TIMEOUTS;
    // New first (instanceGroups.ts): the replacement joins by its deadline (later, Auto Scaling abandons it:
    // not legitimate) and warms up; then the old instance is drained (its member waits for that at most the
    // drain hook's wait), leaves etcd within its termination hook and shuts down.
    const joined = nodes.joinDeadlineSeconds["control-plane"] + nodes.instanceWarmupSeconds;
    const left = drain.hookHeartbeatSeconds + etcd.leaveHeartbeatSeconds + nodes.kubeletShutdownGracePeriodSeconds;
    // The wait sees it at its next look at the refresh, then at /readyz.
    const seen = deploy.refreshPollSeconds + deploy.apiPollSeconds + deploy.apiAttemptSeconds;
    // The rest of the hour is for what no timeout of the program bounds: EC2 launching and stopping instances.
    expect(deploy.memberReplacementSeconds).to.be.at.least(joined + left + seen);
    // A new cluster's first node: no refresh, the API within its join deadline; the same wait covers it.
    expect(deploy.memberReplacementSeconds).to.be.at.least(nodes.joinDeadlineSeconds["control-plane"] + seen);
  });

  it("keeps a leaving member's instance with a heartbeat inside its hook, and a join's waits inside a bootstrap run", () => {
    const bash = TIMEOUTS.bootstrapScripts;
    // One try of the removal: EC2's answer (retried), three etcdctl calls (list, remove, list again; each at
    // most its dial and command timeouts, etcd.sh), then the pause before the next heartbeat.
    const ec2 = retrySleeps(bash.retryTries, bash.retryFirstDelaySeconds, bash.retryMaxDelaySeconds);
    const etcdctl = 3 * (3 + 10);
    expect(ec2 + etcdctl + bash.etcdLeaveRetrySeconds).to.be.lessThan(TIMEOUTS.etcd.leaveHeartbeatSeconds);
    // Waiting for the drain, the service sends a heartbeat each look at the node: two kubectl calls of at most
    // their request timeout (drain.sh), then the pause.
    expect(2 * 10 + bash.etcdLeaveRetrySeconds).to.be.lessThan(TIMEOUTS.etcd.leaveHeartbeatSeconds);
    // wait_for_api, a worker's wait for its credential (each try an SSM call of at most 10 s, then the pause),
    // then kubeadm join's own discovery and TLS bootstrap (5 minutes each), fit in one run.
    const apiWait = bash.apiWaitTries * (bash.apiWaitIntervalSeconds + bash.apiWaitAttemptSeconds);
    const credentialWait = bash.nodeCredentialWaitTries * (bash.nodeCredentialsIntervalSeconds + 10);
    expect(apiWait + credentialWait + 600).to.be.lessThan(TIMEOUTS.nodes.bootstrapRunMinutes * 60);
    // A control-plane node: wait_for_api, the cluster's keys (retry's tries, each SSM call at most 10 s),
    // discovery and TLS bootstrap, then kubeadm's etcd calls: adding its learner, and promoting it.
    const keysWait = retrySleeps(bash.retryTries, bash.retryFirstDelaySeconds, bash.retryMaxDelaySeconds) + 8 * 10;
    const etcdCalls = 2 * TIMEOUTS.nodes.etcdApiCallSeconds;
    expect(apiWait + keysWait + 600 + etcdCalls).to.be.lessThan(TIMEOUTS.nodes.bootstrapRunMinutes * 60);
  });

  it("gives the drain hook's wait room for the handler to drain again after a drain that ran out of time", () => {
    const { drain } = TIMEOUTS;
    // A drain that fails at its deadline leaves the event in the queue: the handler receives it again once it
    // is visible again, and drains again, inside the hook's wait; the queue keeps the event as long as the hook.
    expect(2 * drain.drainAttemptSeconds + drain.messageVisibilitySeconds).to.be.lessThan(drain.hookHeartbeatSeconds);
    // The handler's own bounds (its config.go): a visibility timeout of 1 to 119 s.
    expect(drain.messageVisibilitySeconds).to.be.within(1, 119);
  });

  it("keeps a worker's credential valid until its launch hook gives up on it, and the worker looking for it over several issuer rounds", () => {
    const bash = TIMEOUTS.bootstrapScripts;
    // Issued once the control plane sees the instance (node-credentials.sh): the kubelet requests its own
    // certificate with it before the join deadline, or Auto Scaling abandons the instance first.
    expect(bash.nodeCredentialMinutes * 60).to.be.at.least(TIMEOUTS.nodes.joinDeadlineSeconds.node);
    // join-credential.sh reads it again as often as the issuer looks: a credential the issuer writes at its
    // next round, or the one after, is found within one run.
    const looking = retrySleeps(
      bash.nodeCredentialWaitTries,
      bash.nodeCredentialsIntervalSeconds,
      bash.nodeCredentialsIntervalSeconds,
    );
    expect(looking).to.be.greaterThan(2 * bash.nodeCredentialsIntervalSeconds);
  });
});
