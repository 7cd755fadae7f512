// The etcd-lifecycle service's script as a control-plane node installs it (install_etcd_tools), run against
// a real three-member etcd, a fake instance-metadata service and a stand-in AWS CLI that answers as Auto
// Scaling does for an instance in Terminating:Wait.
import { expect } from "chai";
import { requireBinary } from "../kubernetes/binaries";
import { spawn } from "child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import type { Server } from "http";
import { startImds } from "./imds";
import { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { ETCD_LIFECYCLE_HOOK } from "../../components/nodes/controlPlaneState";
import { renderControlPlaneTools } from "../../components/nodes/controlPlaneTools";
import {
  etcdToolsDir,
  EtcdMember,
  etcdctl,
  initialCluster,
  startCluster,
  startMember,
  stopAll,
  stopMember,
  waitHealthy,
} from "./realEtcd";
import { describeFailsOnEtcd36 } from "./pendingOnProvenEngines";

/**
 * Auto Scaling as the AWS CLI reports it: the instance's group and that group's desired capacity. EC2 can
 * fail one operation (STUB_EC2_FAILS: describe-volumes or create-tags) as a throttled call does, every time
 * until the watcher has sent a heartbeat (so whatever the CLI retries).
 */
const AWS_STUB = `echo "aws $*" >> "$STUB_LOG"
if [ "$1 $2" = "ec2 \${STUB_EC2_FAILS:-}" ] && ! grep -q heartbeat "$STUB_LOG"; then
  echo "An error occurred (RequestLimitExceeded) when calling the $2 operation: Request limit exceeded." >&2; exit 254
fi
case "$1 $2" in
"autoscaling describe-auto-scaling-instances") echo control-plane-us-east-1c.dev.k8s.local;;
"autoscaling describe-auto-scaling-groups") printf 'control-plane-us-east-1c.dev.k8s.local\\t%s\\n' "$STUB_CAPACITY";;
"autoscaling complete-lifecycle-action"|"autoscaling record-lifecycle-action-heartbeat") ;;
"ec2 describe-volumes") case "$*" in
  *"Name=attachment.instance-id,Values=i-0123456789abcdef0"*) printf 'vol-0123456789abcdef0\\tmember\\n';;
  *) exit 1;; esac;;
"ec2 create-tags") ;;
*) exit 1;;
esac`;

/**
 * Runs the script; `stop` ends it (a test that fails while the script still waits must not leave it
 * running), and one still running after `limitMs` is killed (status null): a watcher that hangs fails.
 */
function run(script: string, args: string[], env: NodeJS.ProcessEnv, limitMs = 240000) {
  let stop = () => {};
  const done = new Promise<{ status: number | null; err: string }>((resolve) => {
    const child = spawn("bash", [script, ...args], { env, detached: true });
    // A script that has already ended has no process group left to signal.
    stop = () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
    };
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), limitMs);
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, err });
    });
  });
  return { done, stop };
}

describeFailsOnEtcd36("etcd-lifecycle on a terminating control-plane node, against a real etcd", function () {
  this.timeout(300000);
  let members: EtcdMember[] = [];
  let imds: Server;
  let dir: string;

  before(async function () {
    requireBinary(this, "etcd");
    requireBinary(this, "etcdctl");
    imds = await startImds({
      "instance-id": "i-0123456789abcdef0",
      "autoscaling/target-lifecycle-state": "Terminated",
      "local-ipv4": "127.0.0.1",
    });
    dir = mkdtempSync(join(tmpdir(), "etcd-lifecycle-"));
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin/aws"), `#!/bin/bash\n${AWS_STUB}\n`);
    chmodSync(join(dir, "bin/aws"), 0o755);
    // The tools bundle exactly as control-plane nodes fetch it.
    writeFileSync(join(dir, "control-plane-tools"), renderControlPlaneTools());
  });
  after(() => imds?.close());
  beforeEach(async () => {
    members = (await startCluster(3)).members;
  });
  afterEach(async () => stopAll(members));

  async function terminate(
    capacity: string,
    whileWaiting?: (log: string) => Promise<void>,
    env: NodeJS.ProcessEnv = {},
  ): Promise<string> {
    const log = join(dir, `log-${capacity}-${Object.values(env).join("-")}`.replace(/[^\w.-]/g, "_"));
    writeFileSync(log, "");
    const watch = run(join(dir, "control-plane-tools"), ["etcd_lifecycle_watch", ETCD_LIFECYCLE_HOOK], {
      ETCD_LEAVE_RETRY_SECONDS: "1",
      PATH: `${join(dir, "bin")}:${process.env.PATH}`,
      IMDS_ENDPOINT: `http://127.0.0.1:${(imds.address() as AddressInfo).port}`,
      STUB_LOG: log,
      STUB_CAPACITY: capacity,
      REGION: "us-east-1",
      // This node's member is m3; the TLS files of a node do not exist here.
      ETCD_LOCAL: members[2].clientUrl,
      ETCD_ENDPOINTS: members[2].clientUrl,
      ETCD_TOOLS_DIR: etcdToolsDir(),
      ETCDCTL_CACERT: "",
      ETCDCTL_CERT: "",
      ETCDCTL_KEY: "",
      BOOTSTRAP_RETRY_DELAY: "0",
      BOOTSTRAP_TRIES: "2",
      ...env,
    });
    if (whileWaiting)
      await whileWaiting(log).catch((e) => {
        watch.stop();
        throw e;
      });
    const r = await watch.done;
    expect(r.status, r.err).to.equal(0);
    return readFileSync(log, "utf8");
  }

  const memberList = () => etcdctl(members[0].clientUrl, "member", "list").out;
  const memberCount = () => memberList().trim().split("\n").length;
  /** Member lists are served locally: poll until m1 has applied the change. */
  async function settled(count: number) {
    for (let i = 0; i < 50 && memberCount() !== count; i++) await new Promise((r) => setTimeout(r, 100));
    return memberCount();
  }

  const REMOVED_TAG =
    "aws ec2 create-tags --region us-east-1 --resources vol-0123456789abcdef0 --tags Key=cilium-cluster/etcd-state,Value=removed";

  it("a group scaled to zero: the member leaves etcd, its volume is marked removed, then the termination goes on", async () => {
    const log = await terminate("0");
    expect(await settled(2)).to.equal(2);
    expect(memberList()).not.to.contain(members[2].peerUrl);
    expect(log.indexOf(REMOVED_TAG)).to.be.within(0, log.indexOf("complete-lifecycle-action"));
    expect(log).to.contain(
      `aws autoscaling complete-lifecycle-action --region us-east-1 --lifecycle-hook-name ${ETCD_LIFECYCLE_HOOK} --auto-scaling-group-name control-plane-us-east-1c.dev.k8s.local --instance-id i-0123456789abcdef0 --lifecycle-action-result CONTINUE`,
    );
    // The two members left elect a leader (the one removed may have led) and take writes.
    let put = etcdctl(`${members[0].clientUrl},${members[1].clientUrl}`, "put", "k", "v");
    for (let i = 0; i < 50 && put.status !== 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      put = etcdctl(`${members[0].clientUrl},${members[1].clientUrl}`, "put", "k", "v");
    }
    expect(put.status, put.err).to.equal(0);
  });

  for (const fails of ["create-tags", "describe-volumes"]) {
    it(`EC2 failing ${fails} after the member left: the watcher keeps the instance, marks the volume removed, then goes on`, async () => {
      const log = await terminate("0", undefined, { STUB_EC2_FAILS: fails });
      expect(await settled(2)).to.equal(2);
      expect(memberList()).not.to.contain(members[2].peerUrl);
      const lines = log.split("\n");
      const heartbeat = lines.findIndex((l) => l.includes("record-lifecycle-action-heartbeat"));
      const complete = lines.findIndex((l) => l.includes("complete-lifecycle-action"));
      // The tag that took is the one after the heartbeat (EC2 fails every call before it), before the end.
      expect(heartbeat, log).to.be.at.least(0);
      expect(lines.lastIndexOf(REMOVED_TAG)).to.be.within(heartbeat, complete);
      expect(
        lines.filter((l) => l.includes("heartbeat")),
        "one failed try, then done",
      ).to.have.length(1);
    });
  }

  it("a group that keeps its instance (a replacement): the member stays for the replacement", async () => {
    const log = await terminate("1");
    expect(await settled(2)).to.equal(3);
    expect(log).to.contain("complete-lifecycle-action");
    expect(log).not.to.contain("create-tags");
    expect(log, "every other member healthy: nothing to wait for").not.to.contain("heartbeat");
  });

  const HEARTBEAT = `aws autoscaling record-lifecycle-action-heartbeat --region us-east-1 --lifecycle-hook-name ${ETCD_LIFECYCLE_HOOK} --auto-scaling-group-name control-plane-us-east-1c.dev.k8s.local --instance-id i-0123456789abcdef0`;

  it("a replacement while another member is down keeps the instance (heartbeats) until that member is back", async () => {
    await stopMember(members[0]);
    const log = await terminate("1", async (path) => {
      // m1 down, m3 replaced: m3 going now would leave m2 alone, without quorum.
      for (let i = 0; i < 900 && (readFileSync(path, "utf8").match(/heartbeat/g) ?? []).length < 2; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(readFileSync(path, "utf8")).to.contain(HEARTBEAT);
      expect(readFileSync(path, "utf8")).not.to.contain("complete-lifecycle-action");
      startMember(members[0], initialCluster(members), "existing");
      await waitHealthy(members);
    });
    expect(log.indexOf("complete-lifecycle-action")).to.be.above(log.lastIndexOf(HEARTBEAT));
    expect(await settled(3), "the member stays for the replacement").to.equal(3);
    expect(log).not.to.contain("create-tags");
  });

  it("a replacement while another member stays down lets the instance go once the bound has passed", async () => {
    await stopMember(members[0]);
    const start = Date.now();
    const log = await terminate("1", undefined, { ETCD_PEERS_WAIT_SECONDS: "3" });
    // bash's SECONDS counts whole seconds from the shell's start: a bound of 3 ends after 2 to 3 seconds.
    expect(Date.now() - start).to.be.within(2000, 60000);
    expect(log).to.contain(HEARTBEAT);
    expect(log.indexOf("complete-lifecycle-action")).to.be.above(log.lastIndexOf(HEARTBEAT));
  });

  it("a removal that would lose quorum keeps the instance (heartbeats) until the member can leave", async () => {
    const log = await terminate("0", async (path) => {
      // Both peers down: removing m3 would leave no healthy member. The watch must neither remove it nor let
      // the instance go.
      await Promise.all([stopMember(members[0]), stopMember(members[1])]);
      for (let i = 0; i < 900 && (readFileSync(path, "utf8").match(/heartbeat/g) ?? []).length < 2; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(readFileSync(path, "utf8")).not.to.contain("complete-lifecycle-action");
      expect(readFileSync(path, "utf8"), "the member is still there").not.to.contain("create-tags");
      for (const m of members.slice(0, 2)) startMember(m, initialCluster(members), "existing");
      await waitHealthy(members.slice(0, 2));
    });
    const heartbeat = log.indexOf(
      `aws autoscaling record-lifecycle-action-heartbeat --region us-east-1 --lifecycle-hook-name ${ETCD_LIFECYCLE_HOOK} --auto-scaling-group-name control-plane-us-east-1c.dev.k8s.local --instance-id i-0123456789abcdef0`,
    );
    expect(heartbeat).to.be.at.least(0);
    expect(log.indexOf("complete-lifecycle-action")).to.be.above(heartbeat);
    expect(await settled(2)).to.equal(2);
    expect(memberList()).not.to.contain(members[2].peerUrl);
  });

  it("a member a peer already removed (its zone left the control plane): the hook completes", async () => {
    const [m1, m2, m3] = members;
    const m3Id = etcdctl(m3.clientUrl, "endpoint", "status", "-w", "simple").out.split(", ")[1];
    // etcd refuses membership changes until its members have been connected a few seconds.
    let remove = etcdctl(m1.clientUrl, "member", "remove", m3Id);
    for (let i = 0; i < 50 && remove.status !== 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      remove = etcdctl(m1.clientUrl, "member", "remove", m3Id);
    }
    expect(remove.status, remove.err).to.equal(0);
    expect(await settled(2)).to.equal(2);
    // A removed member stops serving.
    await stopMember(m3);
    const log = await terminate("0", undefined, {
      ETCD_PEER_ENDPOINTS: `${m1.clientUrl},${m2.clientUrl}`,
      ETCD_PEER_SCHEME: "http",
      ETCD_PEER_PORT: m3.peerUrl.split(":")[2],
    });
    expect(log).to.contain(REMOVED_TAG);
    expect(log).to.contain("complete-lifecycle-action");
    expect(log).not.to.contain("record-lifecycle-action-heartbeat");
  });

  for (const [peers, which] of [
    ["listed", (m: EtcdMember[]) => `${m[0].clientUrl},${m[1].clientUrl}`],
    ["no peer answering", () => "http://127.0.0.1:1"],
  ] as const)
    it(`a member that is down, ${peers}, is not taken for removed: the instance waits until it can leave`, async () => {
      const m3 = members[2];
      await stopMember(m3);
      const log = await terminate(
        "0",
        async (path) => {
          for (let i = 0; i < 900 && (readFileSync(path, "utf8").match(/heartbeat/g) ?? []).length < 2; i++)
            await new Promise((r) => setTimeout(r, 100));
          expect(readFileSync(path, "utf8")).to.contain(HEARTBEAT);
          expect(readFileSync(path, "utf8")).not.to.contain("complete-lifecycle-action");
          startMember(m3, initialCluster(members), "existing");
        },
        {
          ETCD_PEER_ENDPOINTS: which(members),
          ETCD_PEER_SCHEME: "http",
          ETCD_PEER_PORT: m3.peerUrl.split(":")[2],
        },
      );
      expect(log.indexOf("complete-lifecycle-action")).to.be.above(log.lastIndexOf(HEARTBEAT));
      expect(await settled(2)).to.equal(2);
      expect(memberList()).not.to.contain(m3.peerUrl);
    });
});
