// `npm run restore-snapshot`'s steps against a stand-in of Auto Scaling that keeps what the API reference
// says of them (TerminateInstanceInAutoScalingGroup refuses a decrement below the minimum size; a group
// launches instances up to its desired capacity; a terminating instance waits in its hook before it goes),
// and of the first zone's new node, which deletes the restore request once the cluster runs on its snapshot.
// The box (tests/box/cluster.test.ts) runs the command against the emulator and real nodes.
import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { main } from "../../cli/restore/restoreCommand";
import type { ControlPlaneGroup, RestoreAws } from "../../cli/restore/restoreProcedure";

const KEY = "etcd/20260101T000000Z.db";
const OUTPUTS = {
  clusterName: "dev.k8s.local",
  region: "us-east-1",
  backupBucket: "etcd-backups-dev",
  restoreRequest: "/cilium-cluster/dev.k8s.local/control-plane/restore-request-0123456789ab",
};

/** Auto Scaling's control-plane groups, the bucket and the request, with every call and what held at each write. */
class AutoScalingStandIn implements RestoreAws {
  readonly events: string[] = [];
  groups: { name: string; minSize: number; desiredCapacity: number; instances: Map<string, number> }[];
  requested: string | undefined;
  private launched = 0;
  private restoring = 0;
  /** Calls to refuse once, by event. */
  failOnce = new Set<string>();
  /** Polls a terminating instance waits in its hook before it goes; Infinity: never. */
  hookPolls = 2;
  /** Looks at the request a launched node takes to restore the snapshot and delete it; Infinity: never. */
  restorePolls = 2;
  objects = new Map([[KEY, 4096]]);

  constructor(zones: string[]) {
    this.groups = zones.map((z) => ({
      name: `control-plane-${z}`,
      minSize: 1,
      desiredCapacity: 1,
      instances: new Map([[`i-${z}`, -1]]),
    }));
  }

  private record(event: string) {
    if (this.failOnce.delete(event)) throw new Error(`${event}: refused (the stand-in)`);
    this.events.push(event);
  }

  get terminating() {
    return this.groups.flatMap((g) => [...g.instances.values()].filter((polls) => polls >= 0)).length;
  }

  snapshot(bucket: string, key: string) {
    this.events.push(`head ${bucket}/${key}`);
    const bytes = this.objects.get(key);
    return Promise.resolve(bytes === undefined ? undefined : { bytes, modified: new Date(0) });
  }

  /** Time passes: a terminating instance goes once its hook is done; a group launches up to its desired capacity. */
  private sync() {
    for (const g of this.groups) {
      for (const [id, polls] of g.instances)
        if (polls >= this.hookPolls) g.instances.delete(id);
        else if (polls >= 0) g.instances.set(id, polls + 1);
      while (g.instances.size < g.desiredCapacity) g.instances.set(`i-new-${++this.launched}`, -1);
    }
  }

  controlPlaneGroups(): Promise<ControlPlaneGroup[]> {
    this.sync();
    return Promise.resolve(
      this.groups.map((g) => ({
        name: g.name,
        minSize: g.minSize,
        desiredCapacity: g.desiredCapacity,
        instances: Object.fromEntries(
          [...g.instances].map(([id, p]) => [id, p < 0 ? "InService" : "Terminating:Wait"]),
        ),
      })),
    );
  }

  setSizes(name: string, sizes: { minSize: number; desiredCapacity?: number }) {
    this.record(`sizes ${name} ${sizes.minSize}/${sizes.desiredCapacity ?? "-"}`);
    const g = this.groups.find((x) => x.name === name)!;
    g.minSize = sizes.minSize;
    if (sizes.desiredCapacity !== undefined) g.desiredCapacity = sizes.desiredCapacity;
    return Promise.resolve();
  }

  terminate(id: string) {
    this.record(`terminate ${id} (${this.terminating} terminating)`);
    const g = this.groups.find((x) => x.instances.has(id))!;
    if (g.instances.get(id)! >= 0) return Promise.reject(new Error(`ValidationError: ${id} is terminating`));
    // TerminateInstanceInAutoScalingGroup: "ValidationError ... would violate group's min size constraint".
    if (g.desiredCapacity - 1 < g.minSize)
      return Promise.reject(new Error(`ValidationError: terminating ${id} would violate the min size of ${g.name}`));
    g.desiredCapacity -= 1;
    g.instances.set(id, 0);
    return Promise.resolve();
  }

  request(name: string) {
    expect(name).to.equal(OUTPUTS.restoreRequest);
    this.sync();
    // The first zone's new node (launched once the groups have their sizes back) restores, then deletes it.
    const launched = this.groups.some((g) => [...g.instances.keys()].some((id) => id.startsWith("i-new-")));
    if (this.requested && launched && ++this.restoring > this.restorePolls) {
      this.events.push(`restored ${this.requested}`);
      this.requested = undefined;
    }
    return Promise.resolve(this.requested);
  }

  putRequest(name: string, key: string) {
    const left = this.groups.reduce((n, g) => n + g.instances.size, 0);
    this.record(`request ${key} (${left} instances)`);
    expect(name).to.equal(OUTPUTS.restoreRequest);
    this.requested = key;
    return Promise.resolve();
  }
}

describe("npm run restore-snapshot", () => {
  let dir: string;
  let outputsFile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "restore-"));
    outputsFile = join(dir, "outputs.json");
    writeFileSync(outputsFile, JSON.stringify(OUTPUTS));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // A clock that the waits' sleeps move on.
  let clock = 0;
  const timing = {
    instanceGoneMs: 60_000,
    restoredMs: 120_000,
    pollMs: 10_000,
    now: () => clock,
    sleep: (ms: number) => Promise.resolve(void (clock += ms)),
  };
  async function run(aws: RestoreAws, args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) }, () => aws, timing);
    return { code, out: out.join(""), err: err.join("") };
  }
  const restoring = ["--snapshot", KEY, "--outputs", "OUTPUTS", "--yes"];
  const args = () => restoring.map((a) => (a === "OUTPUTS" ? outputsFile : a));
  const writes = (aws: AutoScalingStandIn) => aws.events.filter((e) => !e.startsWith("head "));

  it("empties the control-plane groups one instance at a time, writes the request, gives the groups their sizes back, and waits for the restore", async () => {
    const aws = new AutoScalingStandIn(["a", "b", "c"]);
    const result = await run(aws, args());
    expect(result.code, result.err).to.equal(0);
    expect(writes(aws)).to.deep.equal([
      "sizes control-plane-a 0/-",
      "sizes control-plane-b 0/-",
      "sizes control-plane-c 0/-",
      "terminate i-a (0 terminating)",
      "terminate i-b (0 terminating)",
      "terminate i-c (0 terminating)",
      `request ${KEY} (0 instances)`,
      "sizes control-plane-a 1/1",
      "sizes control-plane-b 1/1",
      "sizes control-plane-c 1/1",
      `restored ${KEY}`,
    ]);
    expect(result.out).to.contain(`The control plane runs on ${KEY}`);
  });

  it("run again after it stopped before the request, it goes on where it stopped", async () => {
    const aws = new AutoScalingStandIn(["a", "b"]);
    aws.failOnce.add("terminate i-b (0 terminating)");
    const first = await run(aws, args());
    expect(first.code).to.equal(1);
    expect(first.err).to.contain("Run the same command again");
    // Stopped with i-a gone and i-b running: no request, and no group launched a replacement.
    expect(aws.requested).to.equal(undefined);
    expect((await aws.controlPlaneGroups()).map((g) => Object.keys(g.instances))).to.deep.equal([[], ["i-b"]]);
    const second = await run(aws, args());
    expect(second.code, second.err).to.equal(0);
    expect(writes(aws).slice(3)).to.deep.equal([
      "terminate i-b (0 terminating)",
      `request ${KEY} (0 instances)`,
      "sizes control-plane-a 1/1",
      "sizes control-plane-b 1/1",
      `restored ${KEY}`,
    ]);
  });

  it("run again after the request was written, it terminates nothing: the new nodes are restoring", async () => {
    const aws = new AutoScalingStandIn(["a", "b"]);
    aws.failOnce.add("sizes control-plane-b 1/1");
    aws.restorePolls = 4;
    const first = await run(aws, args());
    expect(first.code).to.equal(1);
    const second = await run(aws, args());
    expect(second.code, second.err).to.equal(0);
    expect(second.out).to.contain("Its restore request is written already");
    expect(writes(aws).filter((e) => e.startsWith("terminate i-new"))).to.deep.equal([]);
    expect(writes(aws).slice(-3)).to.deep.equal([
      "sizes control-plane-a 1/1",
      "sizes control-plane-b 1/1",
      `restored ${KEY}`,
    ]);
  });

  it("an instance already terminating is waited for, not terminated again", async () => {
    const aws = new AutoScalingStandIn(["a", "b"]);
    aws.groups[1].minSize = 0;
    await aws.terminate("i-b");
    const result = await run(aws, args());
    expect(result.code, result.err).to.equal(0);
    expect(writes(aws).filter((e) => e.startsWith("terminate "))).to.deep.equal([
      "terminate i-b (0 terminating)",
      "terminate i-a (0 terminating)",
    ]);
  });

  it("an instance that does not go in time: no request, the groups left empty, the person told to run it again", async () => {
    const aws = new AutoScalingStandIn(["a"]);
    aws.hookPolls = Infinity;
    const result = await run(aws, args());
    expect(result.code).to.equal(1);
    expect(result.err).to.match(/i-a to go: not done after 60s\nRun the same command again/);
    expect(aws.requested).to.equal(undefined);
    expect(aws.groups[0].minSize).to.equal(0);
  });

  it("a restore that does not happen in time (the snapshot cannot be restored): exit 1, the request kept", async () => {
    const aws = new AutoScalingStandIn(["a"]);
    aws.restorePolls = Infinity;
    const result = await run(aws, args());
    expect(result.code).to.equal(1);
    expect(result.err).to.contain(
      `the restore of ${KEY} (${OUTPUTS.restoreRequest} deleted by the node that restored it)`,
    );
    expect(aws.requested).to.equal(KEY);
  });

  it("without --yes: says what it would do, changes nothing, and prints the command that goes on", async () => {
    const aws = new AutoScalingStandIn(["a"]);
    const result = await run(aws, ["--snapshot", KEY, "--outputs", outputsFile]);
    expect(result.code).to.equal(0);
    expect(writes(aws)).to.deep.equal([]);
    expect(result.out).to.contain("instances: i-a");
    expect(result.out).to.contain("Nothing was changed");
    expect(result.out).to.contain(`npm run restore-snapshot -- --snapshot ${KEY} --outputs ${outputsFile} --yes`);
  });

  it("refuses a key that is not one of the timer's snapshots, and names every problem at once, before any call", async () => {
    const aws = new AutoScalingStandIn(["a"]);
    const result = await run(aws, [
      "--snapshot",
      "latest/etcd.db",
      "--stack",
      "dev",
      "--outputs",
      outputsFile,
      "--yes",
    ]);
    expect(result.code).to.equal(2);
    expect(result.err).to.contain("--snapshot latest/etcd.db: not a snapshot of the backup timer's");
    expect(result.err).to.contain("--stack and --outputs both say where the outputs are");
    expect(aws.events).to.deep.equal([]);
  });

  it("a snapshot that does not exist or is empty, or outputs without the restore request: refused, nothing changed", async () => {
    const aws = new AutoScalingStandIn(["a"]);
    const missing = await run(aws, ["--snapshot", "etcd/20250101T000000Z.db", "--outputs", outputsFile, "--yes"]);
    expect(missing.code).to.equal(2);
    expect(missing.err).to.contain(`aws s3 ls s3://${OUTPUTS.backupBucket}/etcd/`);
    aws.objects.set("etcd/20250101T000000Z.db", 0);
    const empty = await run(aws, ["--snapshot", "etcd/20250101T000000Z.db", "--outputs", outputsFile, "--yes"]);
    expect(empty.code).to.equal(2);
    expect(empty.err).to.contain("is empty: not a snapshot");
    writeFileSync(outputsFile, JSON.stringify({ ...OUTPUTS, restoreRequest: undefined }));
    const noRequest = await run(aws, args());
    expect(noRequest.code).to.equal(2);
    expect(noRequest.err).to.contain("the stack outputs have no restoreRequest");
    expect(writes(aws)).to.deep.equal([]);
  });
});
