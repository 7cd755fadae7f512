// The program's timeouts (components/timeouts.ts): pulumi up's wait outlasts a control-plane member's longest
// legitimate replacement, and the bash literals the table mirrors are the scripts'.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import { TIMEOUTS } from "../components/timeouts";

const BOOTSTRAP = join(__dirname, "..", "components", "nodes", "bootstrap");

/** Every default the script gives `${NAME:-default}`: the literals bash falls back to. */
function bashDefaults(script: string, name: string): number[] {
  const text = readFileSync(join(BOOTSTRAP, script), "utf8");
  return [...text.matchAll(new RegExp(`\\$\\{${name}:-(\\d+)\\}`, "g"))].map((m) => Number(m[1]));
}

describe("the timeouts table", () => {
  it("lets pulumi up wait out the longest legitimate replacement of a control-plane member", () => {
    const { nodes, etcd, bootstrapScripts: bash, deploy } = TIMEOUTS;
    // The old instance in Terminating:Wait: while another member is down, held with a heartbeat every retry
    // until the peers wait runs out (one more retry may start just before); if the heartbeats stop, the
    // hook's own timeout ends it sooner.
    const held = Math.max(bash.etcdPeersWaitSeconds + bash.etcdLeaveRetrySeconds, etcd.leaveHeartbeatSeconds);
    // Then the node shuts down, draining its pods, then the critical ones.
    const shutdown = nodes.kubeletShutdownGracePeriodSeconds;
    // The replacement joins by its deadline (later, Auto Scaling abandons it: not legitimate) and warms up.
    const joined = nodes.joinDeadlineSeconds["control-plane"] + nodes.instanceWarmupSeconds;
    // The wait sees it at its next look at the refresh, then at /readyz.
    const seen = deploy.refreshPollSeconds + deploy.apiPollSeconds + deploy.apiAttemptSeconds;
    const longest = held + shutdown + joined + seen;
    // The rest of the hour is for what no timeout of the program bounds: EC2 launching and stopping instances.
    expect(deploy.memberReplacementSeconds).to.be.at.least(longest);
    // A new cluster's first node: no refresh, the API within its join deadline; the same wait covers it.
    expect(deploy.memberReplacementSeconds).to.be.at.least(nodes.joinDeadlineSeconds["control-plane"] + seen);
  });

  it("mirrors the literals the node's bash reads", () => {
    const mirrored: [string, string, number][] = [
      ["etcd-lifecycle.sh", "ETCD_PEERS_WAIT_SECONDS", TIMEOUTS.bootstrapScripts.etcdPeersWaitSeconds],
      ["etcd-lifecycle.sh", "ETCD_LEAVE_RETRY_SECONDS", TIMEOUTS.bootstrapScripts.etcdLeaveRetrySeconds],
    ];
    for (const [script, name, value] of mirrored) {
      const defaults = bashDefaults(script, name);
      expect(defaults.length, `${script} ${name}`).to.be.greaterThan(0);
      expect(new Set(defaults), `${script} ${name}`).to.deep.equal(new Set([value]));
    }
  });
});
