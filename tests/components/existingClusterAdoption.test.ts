// ExistingClusterAdoption: its decisions as tables, and its AWS calls against stand-ins that follow the AWS
// APIs' contracts (tests/standins/adoptionAws.ts): a record, a new cluster, a running cluster adopted, and each
// way a snapshot command fails.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import {
  adoptedBefore,
  adoptionPlan,
  AdoptionPlan,
  commandOutcome,
  firstManaged,
  oldGeneration,
} from "../../components/controlPlane/adoptionDecisions";
import { ETCD_MEMBER_TAG } from "../../components/nodes/controlPlaneState";
import {
  adoptExistingCluster,
  AdoptionInputs,
  DEPLOYER_ACTIONS,
  runShellScriptCommand,
  snapshotAgain,
} from "../../components/controlPlane/existingClusterAdoption";
import type { Outcome } from "../../components/controlPlane/refreshWait";
import { ACCOUNT, AdoptionAws, StandInInstance, StandInOptions } from "../standins/adoptionAws";

const RECORD = "/cilium-cluster/dev.k8s.local/control-plane/initialized-0a1b2c3d4e5f";
const CLUSTER = "dev.k8s.local";
const controlPlaneTags = (cluster = CLUSTER) => ({
  KubernetesCluster: cluster,
  [`kubernetes.io/cluster/${cluster}`]: "owned",
  "k8s.io/role/control-plane": "1",
});
const running = (id: string, managedAfter = 0): StandInInstance => ({
  id,
  state: "running",
  tags: controlPlaneTags(),
  managedAfter,
});

/** A command that succeeds, as the snapshot script ends. */
const SUCCESS = { statuses: ["Success"], stdout: "uploaded etcd snapshot etcd/20260101T000000Z.db\n" };

const inputs: AdoptionInputs = {
  region: "us-east-1",
  accountId: ACCOUNT,
  clusterName: CLUSTER,
  initRecord: RECORD,
  script: "echo uploaded etcd snapshot etcd/20260101T000000Z.db",
  managedTimeoutSeconds: 900,
  commandTimeoutSeconds: 600,
  pollSeconds: 10,
};

/** Adoption against the stand-in on a fake clock: sleeping moves the clock on (and lets a command run). */
async function adopt(
  options: StandInOptions,
  overrides: Partial<AdoptionInputs> = {},
  run: typeof adoptExistingCluster | typeof snapshotAgain = adoptExistingCluster,
) {
  const aws = new AdoptionAws(options);
  let clock = Date.parse("2026-11-30T18:00:00Z");
  const sleep = async (ms: number) => {
    clock += ms;
    await new Promise((r) => setImmediate(r));
  };
  const result = await run({ ...inputs, ...overrides }, aws, sleep, () => clock).then(
    (said) => ({ said, error: undefined }),
    (error: Error) => ({ said: undefined, error: error.message }),
  );
  return { ...result, aws, ops: aws.calls.map((c) => c.op) };
}

describe("existing-cluster adoption: decisions", () => {
  it("adopts only a cluster that runs without an init record, on the same node every time", () => {
    const table: [string | undefined, string[], AdoptionPlan][] = [
      [undefined, [], { adopt: false, reason: "no control-plane instance runs: a new cluster" }],
      [
        "i-0aaa 2026-01-01T00:00:00Z",
        [],
        { adopt: false, reason: "the init record exists (i-0aaa 2026-01-01T00:00:00Z)" },
      ],
      [
        "i-0aaa 2026-01-01T00:00:00Z",
        ["i-0bbb"],
        { adopt: false, reason: "the init record exists (i-0aaa 2026-01-01T00:00:00Z)" },
      ],
      [
        "adopted 2026-01-01T00:00:00Z",
        ["i-0bbb"],
        { adopt: false, reason: "the init record exists (adopted 2026-01-01T00:00:00Z)" },
      ],
      [undefined, ["i-0bbb"], { adopt: true, candidates: ["i-0bbb"] }],
      [undefined, ["i-0ccc", "i-0bbb", "i-0ddd"], { adopt: true, candidates: ["i-0bbb", "i-0ccc", "i-0ddd"] }],
    ];
    for (const [record, instances, plan] of table)
      expect(adoptionPlan(record, instances), `${record} ${instances}`).to.deep.equal(plan);
  });

  it("reads Run Command's statuses and the agent's ping status", () => {
    const table: [Parameters<typeof commandOutcome>[0], Outcome][] = [
      [{ Status: "Pending" }, "wait"],
      [{ Status: "InProgress" }, "wait"],
      [{ Status: "Delayed" }, "wait"],
      [{ Status: "Success" }, "done"],
      [
        {
          Status: "Failed",
          StatusDetails: "Failed",
          StandardErrorContent: "a\nb\nno running etcd container on this node\n",
        },
        { failed: "the snapshot command Failed (Failed): a / b / no running etcd container on this node" },
      ],
      [
        { Status: "TimedOut", StatusDetails: "ExecutionTimedOut" },
        { failed: "the snapshot command TimedOut (ExecutionTimedOut)" },
      ],
      [{ Status: "Cancelled" }, { failed: "the snapshot command Cancelled (Cancelled)" }],
      [{}, { failed: "unknown command status (none)" }],
    ];
    for (const [invocation, outcome] of table)
      expect(commandOutcome(invocation), JSON.stringify(invocation)).to.deep.equal(outcome);
    const online = (id: string) => ({ InstanceId: id, PingStatus: "Online" });
    expect(firstManaged([online("i-1")], ["i-1"])).to.equal("i-1");
    expect(firstManaged([{ InstanceId: "i-1", PingStatus: "ConnectionLost" }], ["i-1"])).to.equal(undefined);
    expect(firstManaged([online("i-2")], ["i-1"])).to.equal(undefined);
    expect(firstManaged([], ["i-1"])).to.equal(undefined);
    // The first candidate (by id) that is online, whatever order AWS lists them in.
    expect(firstManaged([online("i-3"), online("i-2")], ["i-1", "i-2", "i-3"])).to.equal("i-2");
  });
});

describe("existing-cluster adoption against AWS's contracts", () => {
  it("does nothing when the init record exists (a stack created with it, or adopted before)", async () => {
    const r = await adopt({
      parameters: { [RECORD]: "i-0aaa 2026-01-01T00:00:00Z" },
      instances: [running("i-0bbb")],
      command: SUCCESS,
    });
    expect(r.said).to.equal("nothing to adopt: the init record exists (i-0aaa 2026-01-01T00:00:00Z)");
    expect(r.ops).to.deep.equal(["GetCallerIdentity", "GetParameter"]);
  });

  it("does nothing for a new cluster: no running control-plane instance of this cluster", async () => {
    const r = await adopt({
      instances: [
        { id: "i-0worker", state: "running", tags: { KubernetesCluster: CLUSTER, "k8s.io/role/node": "1" } },
        { id: "i-0stopped", state: "stopped", tags: controlPlaneTags() },
        { id: "i-0other", state: "running", tags: controlPlaneTags("other.k8s.local") },
      ],
      command: SUCCESS,
    });
    expect(r.said).to.equal("nothing to adopt: no control-plane instance runs: a new cluster");
    expect(r.ops).to.deep.equal(["GetCallerIdentity", "GetParameter", "DescribeInstances"]);
    expect(r.aws.parameters.has(RECORD)).to.equal(false);
  });

  it("adopts a running cluster: waits for the agent, snapshots on one node, then creates the record", async () => {
    const r = await adopt(
      { instances: [running("i-0ccc", 3), running("i-0bbb", 3)], command: { env: process.env } },
      {
        pollSeconds: 0.01,
      },
    );
    expect(r.error).to.equal(undefined);
    expect(r.said).to.equal("adopted the running cluster from i-0bbb: uploaded etcd snapshot etcd/20260101T000000Z.db");
    // Both pages of instances read; the agent polled until Online; InvocationDoesNotExist waited out.
    expect(r.ops.filter((o) => o === "DescribeInstances")).to.have.length(2);
    expect(r.ops.filter((o) => o === "DescribeInstanceInformation")).to.have.length(4);
    expect(r.ops.indexOf("SendCommand")).to.be.greaterThan(r.ops.lastIndexOf("DescribeInstanceInformation"));
    expect(r.ops.at(-1)).to.equal("PutParameter");
    const put = r.aws.calls.at(-1)!.input as { Overwrite: boolean; Type: string };
    expect(put).to.include({ Overwrite: false, Type: "String" });
    // The record's first word is its owner for cluster-state.sh: no instance of the cluster.
    expect(r.aws.parameters.get(RECORD)).to.match(/^adopted 2026-11-30T18:\d\d:\d\dZ$/);
  });

  it("snapshots on another node when the first one's agent never comes online", async () => {
    const r = await adopt({
      instances: [running("i-0bbb", 1000), running("i-0ccc", 2)],
      command: SUCCESS,
    });
    expect(r.error).to.equal(undefined);
    expect(r.said).to.match(/^adopted the running cluster from i-0ccc: /);
    const send = r.aws.calls.find((c) => c.op === "SendCommand")!.input as { InstanceIds: string[] };
    expect(send.InstanceIds).to.deep.equal(["i-0ccc"]);
  });

  it("the record appearing meanwhile (a node created it) is no failure", async () => {
    const aws = new AdoptionAws({ instances: [running("i-0bbb")], command: SUCCESS });
    const put = aws.putParameter.bind(aws);
    aws.putParameter = async (i) => {
      aws.parameters.set(RECORD, "i-0bbb 2026-11-30T18:00:00Z");
      return put(i);
    };
    await adoptExistingCluster({ ...inputs, pollSeconds: 0 }, aws, async () => undefined);
    expect(aws.parameters.get(RECORD)).to.equal("i-0bbb 2026-11-30T18:00:00Z");
  });

  for (const [statuses, expected] of [
    [["Pending", "InProgress", "Failed"], "the snapshot command Failed"],
    [["InProgress", "TimedOut"], "the snapshot command TimedOut"],
    [["Cancelled"], "the snapshot command Cancelled"],
    [["InProgress"], "not done after 600s"],
  ] as [string[], string][]) {
    it(`stops pulumi up, creating no record, when the command ends ${statuses.at(-1)}`, async () => {
      const r = await adopt({ instances: [running("i-0bbb")], command: { statuses } });
      expect(r.error).to.contain(`adopting the running cluster ${CLUSTER} before its control plane is replaced`);
      expect(r.error).to.contain(expected);
      expect(r.error).to.contain('docs/operations.md, "Upgrading a stack created before the etcd volumes');
      expect(r.ops).not.to.include("PutParameter");
      expect(r.aws.parameters.has(RECORD)).to.equal(false);
    });
  }

  it("stops, sending nothing, when the node never becomes SSM-managed in the time given", async () => {
    const r = await adopt({ instances: [running("i-0bbb", 1000)], command: SUCCESS });
    expect(r.error).to.contain("waiting for one of i-0bbb to be SSM-managed (Run Command): not done after 900s");
    expect(r.ops).not.to.include("SendCommand");
    expect(r.ops).not.to.include("PutParameter");
  });

  it("an SSM answer other than ParameterNotFound is no 'no record': it stops", async () => {
    const aws = new AdoptionAws({ instances: [], command: SUCCESS });
    aws.getParameter = async () => {
      throw Object.assign(new Error("User is not authorized to perform: ssm:GetParameter"), {
        name: "AccessDeniedException",
      });
    };
    const error = await adoptExistingCluster(inputs, aws, async () => undefined).catch((e: Error) => e.message);
    expect(error).to.contain("not authorized to perform: ssm:GetParameter");
  });

  it("runs the script through bash whatever shell the agent uses", () => {
    const command = runShellScriptCommand('#!/bin/bash\nset -euo pipefail\n[[ -n x ]] && echo "it\'s bash"\n');
    expect(command).to.match(/^bash -c "\$\(printf %s '[A-Za-z0-9+/=]+' \| base64 -d\)" adoption-snapshot$/);
  });

  it("the deployer's permissions in docs/operations.md and README.md cover every call adoption makes", async () => {
    const first = await adopt({ instances: [running("i-0bbb", 1)], command: SUCCESS });
    const again = await adopt(
      {
        parameters: { [RECORD]: "adopted 2026-11-29T00:00:00Z" },
        instances: [running("i-0bbb")],
        command: SUCCESS,
      },
      {},
      snapshotAgain,
    );
    const service = (op: string) =>
      op.startsWith("Describe") && op !== "DescribeInstanceInformation"
        ? "ec2"
        : op === "GetCallerIdentity"
          ? "sts"
          : "ssm";
    const used = new Set([...first.ops, ...again.ops].map((op) => `${service(op)}:${op}`));
    expect([...used].sort()).to.deep.equal([...DEPLOYER_ACTIONS].sort());
    for (const doc of ["../../docs/operations.md", "../../README.md"]) {
      const text = readFileSync(join(__dirname, doc), "utf8");
      for (const action of DEPLOYER_ACTIONS) expect(text, `${doc}: ${action}`).to.contain(`\`${action}\``);
    }
  });
});

describe("existing-cluster adoption: the credentials and what the command says", () => {
  it("stops, reading nothing else, when the credentials are for another account than the stack's", async () => {
    const r = await adopt({
      account: "210987654321",
      instances: [running("i-0bbb")],
      command: SUCCESS,
    });
    expect(r.error).to.contain("are for account 210987654321, the stack's account is 123456789012");
    expect(r.ops).to.deep.equal(["GetCallerIdentity"]);
    const again = await adopt(
      {
        account: "210987654321",
        parameters: { [RECORD]: "adopted 2026-11-29T00:00:00Z" },
        command: SUCCESS,
      },
      {},
      snapshotAgain,
    );
    expect(again.error).to.contain("are for account 210987654321");
  });

  it("a command that succeeds without saying it uploaded the snapshot creates no record", async () => {
    const r = await adopt(
      { instances: [running("i-0bbb")], command: { env: process.env } },
      { script: "echo saved somewhere", pollSeconds: 0.01 },
    );
    expect(r.error).to.contain('succeeded without saying it uploaded a snapshot: "saved somewhere"');
    expect(r.ops).not.to.include("PutParameter");
    expect(r.aws.parameters.has(RECORD)).to.equal(false);
  });
});

describe("existing-cluster adoption: a fresh snapshot while old control-plane instances run", () => {
  const adoptedRecord = { [RECORD]: "adopted 2026-11-20T00:00:00Z" };
  const memberVolume = (id: string, zone: string, attachedTo?: string) => ({
    id,
    tags: { KubernetesCluster: CLUSTER, [ETCD_MEMBER_TAG]: zone },
    attachedTo,
  });

  it("snapshots again on an old instance (no member volume attached), leaving the record as it is", async () => {
    const r = await adopt(
      {
        parameters: adoptedRecord,
        // The first zone's replacement has its volume; the other zones' old instances have none.
        instances: [running("i-0new"), running("i-0oldc"), running("i-0oldb")],
        volumes: [
          memberVolume("vol-a", "us-east-1a", "i-0new"),
          memberVolume("vol-b", "us-east-1b"),
          memberVolume("vol-c", "us-east-1c"),
          {
            id: "vol-x",
            tags: { KubernetesCluster: "other.k8s.local", [ETCD_MEMBER_TAG]: "us-east-1b" },
            attachedTo: "i-0oldb",
          },
        ],
        command: { env: process.env },
      },
      { pollSeconds: 0.01 },
      snapshotAgain,
    );
    expect(r.error).to.equal(undefined);
    expect(r.said).to.equal(
      "adopted the running cluster again from i-0oldb (old control-plane instances run): uploaded etcd snapshot etcd/20260101T000000Z.db",
    );
    const send = r.aws.calls.find((c) => c.op === "SendCommand")!.input as { InstanceIds: string[] };
    expect(send.InstanceIds).to.deep.equal(["i-0oldb"]);
    expect(r.ops).not.to.include("PutParameter");
    expect(r.aws.parameters.get(RECORD)).to.equal("adopted 2026-11-20T00:00:00Z");
  });

  it("does nothing once every control-plane instance has its member volume, nor for a record a node created", async () => {
    const upgraded = await adopt(
      {
        parameters: adoptedRecord,
        instances: [running("i-0a"), running("i-0b")],
        volumes: [memberVolume("vol-a", "us-east-1a", "i-0a"), memberVolume("vol-b", "us-east-1b", "i-0b")],
        command: SUCCESS,
      },
      {},
      snapshotAgain,
    );
    expect(upgraded.error).to.equal(undefined);
    expect(upgraded.said).to.equal(undefined);
    expect(upgraded.ops).not.to.include("SendCommand");
    const created = await adopt(
      {
        parameters: { [RECORD]: "i-0a 2026-11-20T00:00:00Z" },
        instances: [running("i-0a")],
        command: SUCCESS,
      },
      {},
      snapshotAgain,
    );
    expect(created.said).to.equal(undefined);
    expect(created.ops).to.deep.equal(["GetCallerIdentity", "GetParameter"]);
  });

  it("says which outputs mean the record is an adoption record", () => {
    const table: [string, boolean][] = [
      ["adopted the running cluster from i-0bbb: uploaded etcd snapshot etcd/x.db", true],
      [
        "adopted the running cluster again from i-0bbb (old control-plane instances run): uploaded etcd snapshot x",
        true,
      ],
      ["nothing to adopt: the init record exists (adopted 2026-11-20T00:00:00Z)", true],
      ["nothing to adopt: the init record exists (i-0aaa 2026-01-01T00:00:00Z)", false],
      ["nothing to adopt: no control-plane instance runs: a new cluster", false],
      ["", false],
    ];
    for (const [said, adopted] of table) expect(adoptedBefore(said), said).to.equal(adopted);
    expect(oldGeneration(["i-3", "i-1", "i-2"], ["i-2", "i-9"])).to.deep.equal(["i-1", "i-3"]);
  });
});
