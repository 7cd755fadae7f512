/**
 * ExistingClusterAdoption: the first `pulumi up` of a stack created before etcd volumes, the init record and
 * backups must not lose its cluster. That update replaces every control-plane node (old first); with no
 * record and no snapshot, the replacement of a lone control-plane node would create a new, empty cluster.
 * Created once per stack, before any control-plane group changes: when no init record exists but the
 * cluster's control-plane instances run, it snapshots etcd on one of them (SSM Run Command, the script of
 * adoptionSnapshotScript.ts) into the backup bucket, then creates the init record. A replacement then joins
 * the running members or restores that snapshot; it never runs `kubeadm init`. An update that stopped
 * before the groups changed leaves the snapshot behind while the old cluster runs on: as long as old
 * control-plane instances (no etcd volume attached) run, every update snapshots again before the groups
 * change (diff asks AWS). Otherwise updates do nothing.
 */
import * as pulumi from "@pulumi/pulumi";
import type * as ec2 from "@aws-sdk/client-ec2";
import type * as ssm from "@aws-sdk/client-ssm";
import type * as sts from "@aws-sdk/client-sts";
import { existsSync, readFileSync } from "fs";
import { join } from "path";
import { ETCD_MEMBER_TAG } from "../nodes/controlPlaneState";
import {
  adoptedBefore,
  adoptionPlan,
  commandOutcome,
  firstManaged,
  oldGeneration,
  wasAdopted,
} from "./adoptionDecisions";
import { TIMEOUTS } from "../timeouts";
import { UPLOADED_PREFIX } from "./adoptionSnapshotScript";
import { waitUntil } from "./refreshWait";

/** The AWS calls adoption makes, in the SDK's shapes (and errors: `name` is the AWS error code). */
export interface AdoptionClient {
  getCallerIdentity(input: sts.GetCallerIdentityCommandInput): Promise<sts.GetCallerIdentityCommandOutput>;
  getParameter(input: ssm.GetParameterCommandInput): Promise<ssm.GetParameterCommandOutput>;
  putParameter(input: ssm.PutParameterCommandInput): Promise<ssm.PutParameterCommandOutput>;
  describeInstances(input: ec2.DescribeInstancesCommandInput): Promise<ec2.DescribeInstancesCommandOutput>;
  describeVolumes(input: ec2.DescribeVolumesCommandInput): Promise<ec2.DescribeVolumesCommandOutput>;
  describeInstanceInformation(
    input: ssm.DescribeInstanceInformationCommandInput,
  ): Promise<ssm.DescribeInstanceInformationCommandOutput>;
  sendCommand(input: ssm.SendCommandCommandInput): Promise<ssm.SendCommandCommandOutput>;
  getCommandInvocation(input: ssm.GetCommandInvocationCommandInput): Promise<ssm.GetCommandInvocationCommandOutput>;
}

/** The IAM actions the deploying machine needs for adoption (docs/operations.md lists them). */
export const DEPLOYER_ACTIONS = [
  "sts:GetCallerIdentity",
  "ssm:GetParameter",
  "ssm:PutParameter",
  "ec2:DescribeInstances",
  "ec2:DescribeVolumes",
  "ssm:DescribeInstanceInformation",
  "ssm:SendCommand",
  "ssm:GetCommandInvocation",
] as const;

export interface AdoptionInputs {
  region: string;
  /** The stack's account: the provider's own credentials must be for it (they need not be the stack's). */
  accountId: string;
  clusterName: string;
  initRecord: string;
  /** The snapshot script (adoptionSnapshotScript.ts), rendered for this cluster's bucket. */
  script: string;
  /** How long a node may take to become SSM-managed (an agent that registers late, or is restarted). */
  managedTimeoutSeconds: number;
  commandTimeoutSeconds: number;
  pollSeconds: number;
}

const MANUAL =
  'snapshot the cluster by hand first (docs/operations.md, "Upgrading a stack created before the etcd volumes ' +
  'and the init record"), or fix the cause and run pulumi up again';

/** The Run Command text: bash runs the script whatever shell the agent uses (AWS-RunShellScript). */
export function runShellScriptCommand(script: string): string {
  return `bash -c "$(printf %s '${Buffer.from(script).toString("base64")}' | base64 -d)" adoption-snapshot`;
}

/** The cluster's running control-plane instances, by the tags every control-plane launch template sets. */
async function runningControlPlane(client: AdoptionClient, clusterName: string): Promise<string[]> {
  const ids: string[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.describeInstances({
      Filters: [
        { Name: "tag:KubernetesCluster", Values: [clusterName] },
        { Name: "tag:k8s.io/role/control-plane", Values: ["1"] },
        { Name: "instance-state-name", Values: ["running"] },
      ],
      NextToken,
    });
    for (const r of page.Reservations ?? [])
      for (const i of r.Instances ?? []) if (i.InstanceId) ids.push(i.InstanceId);
    NextToken = page.NextToken;
  } while (NextToken);
  return ids;
}

/** The instances the cluster's etcd member volumes are attached to. */
async function memberVolumeInstances(client: AdoptionClient, clusterName: string): Promise<string[]> {
  const ids: string[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.describeVolumes({
      Filters: [
        { Name: "tag:KubernetesCluster", Values: [clusterName] },
        { Name: "tag-key", Values: [ETCD_MEMBER_TAG] },
      ],
      NextToken,
    });
    for (const v of page.Volumes ?? []) for (const a of v.Attachments ?? []) if (a.InstanceId) ids.push(a.InstanceId);
    NextToken = page.NextToken;
  } while (NextToken);
  return ids;
}

/** Fails unless the provider's credentials (the SDK's default chain, not the stack's) are the stack's account. */
async function checkAccount(client: AdoptionClient, inputs: AdoptionInputs): Promise<void> {
  const account = (await client.getCallerIdentity({})).Account;
  if (account !== inputs.accountId)
    throw new Error(
      `its AWS credentials (the AWS SDK's default chain: AWS_PROFILE, AWS_ACCESS_KEY_ID, ...; not the stack's ` +
        `aws:profile or assumeRole) are for account ${account ?? "(none)"}, the stack's account is ` +
        `${inputs.accountId}: run pulumi with credentials for ${inputs.accountId}`,
    );
}

async function readRecord(client: AdoptionClient, name: string): Promise<string | undefined> {
  try {
    return (await client.getParameter({ Name: name })).Parameter?.Value ?? "";
  } catch (error) {
    if ((error as Error).name === "ParameterNotFound") return undefined;
    throw error;
  }
}

/** The snapshot on the first of `candidates` Run Command reaches; returns it and the script's last line. */
async function snapshotOn(
  client: AdoptionClient,
  inputs: AdoptionInputs,
  candidates: string[],
  sleep: (ms: number) => Promise<void>,
  now: () => number,
): Promise<{ instanceId: string; uploaded: string }> {
  const poll = inputs.pollSeconds * 1000;
  let instanceId: string | undefined;
  await waitUntil(
    `waiting for one of ${candidates.join(", ")} to be SSM-managed (Run Command)`,
    async () => {
      const out = await client.describeInstanceInformation({ Filters: [{ Key: "InstanceIds", Values: candidates }] });
      instanceId = firstManaged(out.InstanceInformationList ?? [], candidates);
      return instanceId ? "done" : "wait";
    },
    inputs.managedTimeoutSeconds * 1000,
    poll,
    now,
    sleep,
  );
  if (!instanceId) throw new Error("no instance is SSM-managed");
  const sent = await client.sendCommand({
    DocumentName: "AWS-RunShellScript",
    InstanceIds: [instanceId],
    Comment: `etcd snapshot before ${inputs.clusterName} moves to etcd volumes`.slice(0, 100),
    Parameters: {
      commands: [runShellScriptCommand(inputs.script)],
      executionTimeout: [String(inputs.commandTimeoutSeconds)],
    },
  });
  const CommandId = sent.Command?.CommandId;
  if (!CommandId) throw new Error("SendCommand returned no command id");
  let last: ssm.GetCommandInvocationCommandOutput | undefined;
  await waitUntil(
    `snapshot command ${CommandId} on ${instanceId}`,
    async () => {
      try {
        last = await client.getCommandInvocation({ CommandId, InstanceId: instanceId });
      } catch (error) {
        // Right after SendCommand the invocation may not exist yet.
        if ((error as Error).name === "InvocationDoesNotExist") return "wait";
        throw error;
      }
      return commandOutcome(last);
    },
    inputs.commandTimeoutSeconds * 1000,
    poll,
    now,
    sleep,
  );
  const uploaded = (last?.StandardOutputContent ?? "").trim().split("\n").pop() ?? "";
  if (!uploaded.startsWith(UPLOADED_PREFIX))
    throw new Error(
      `the snapshot command on ${instanceId} succeeded without saying it uploaded a snapshot: "${uploaded}"`,
    );
  return { instanceId, uploaded };
}

/** What adoption did, for the resource's outputs and pulumi up's log. */
export async function adoptExistingCluster(
  inputs: AdoptionInputs,
  client: AdoptionClient,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  now: () => number = Date.now,
): Promise<string> {
  return explained(inputs, async () => {
    await checkAccount(client, inputs);
    const record = await readRecord(client, inputs.initRecord);
    const running = record === undefined ? await runningControlPlane(client, inputs.clusterName) : [];
    const plan = adoptionPlan(record, running);
    if (!plan.adopt) return `nothing to adopt: ${plan.reason}`;
    const { instanceId, uploaded } = await snapshotOn(client, inputs, plan.candidates, sleep, now);
    try {
      // As the node that creates a cluster does (cluster-state.sh): without overwrite, which SSM makes atomic.
      await client.putParameter({
        Name: inputs.initRecord,
        Type: "String",
        Value: `adopted ${new Date(now()).toISOString().replace(/\.\d+Z$/, "Z")}`,
        Overwrite: false,
      });
    } catch (error) {
      if ((error as Error).name !== "ParameterAlreadyExists") throw error;
    }
    return `adopted the running cluster from ${instanceId}: ${uploaded}`;
  });
}

/** Runs `work`, its error saying what failed and what to do. */
async function explained<T>(inputs: AdoptionInputs, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new Error(
      `adopting the running cluster ${inputs.clusterName} before its control plane is replaced: ` +
        `${(error as Error).message}; ${MANUAL}`,
      { cause: error },
    );
  }
}

/**
 * The old control-plane instances (no etcd member volume attached: their etcd is on the root disk) of an
 * adopted cluster: while one runs, the groups have not all changed and adoption's snapshot ages; the next
 * update takes a fresh one first. None for a cluster whose record a node created.
 */
export async function oldControlPlane(inputs: AdoptionInputs, client: AdoptionClient): Promise<string[]> {
  return explained(inputs, async () => {
    await checkAccount(client, inputs);
    if (!wasAdopted(await readRecord(client, inputs.initRecord))) return [];
    const running = await runningControlPlane(client, inputs.clusterName);
    if (running.length === 0) return [];
    return oldGeneration(running, await memberVolumeInstances(client, inputs.clusterName));
  });
}

/** A fresh snapshot on an old control-plane instance, if one still runs; what it did, or undefined. */
export async function snapshotAgain(
  inputs: AdoptionInputs,
  client: AdoptionClient,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  now: () => number = Date.now,
): Promise<string | undefined> {
  const old = await oldControlPlane(inputs, client);
  if (old.length === 0) return undefined;
  return explained(inputs, async () => {
    const { instanceId, uploaded } = await snapshotOn(client, inputs, old, sleep, now);
    return `adopted the running cluster again from ${instanceId} (old control-plane instances run): ${uploaded}`;
  });
}

// Runs in the engine's dynamic-provider host: what it uses it requires itself.
function awsClient(region: string): AdoptionClient {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const ssmSdk = require("@aws-sdk/client-ssm") as typeof import("@aws-sdk/client-ssm");
  const ec2Sdk = require("@aws-sdk/client-ec2") as typeof import("@aws-sdk/client-ec2");
  const stsSdk = require("@aws-sdk/client-sts") as typeof import("@aws-sdk/client-sts");
  /* eslint-enable @typescript-eslint/no-require-imports */
  const ssmClient = new ssmSdk.SSMClient({ region });
  const ec2Client = new ec2Sdk.EC2Client({ region });
  const stsClient = new stsSdk.STSClient({ region });
  return {
    getCallerIdentity: (i) => stsClient.send(new stsSdk.GetCallerIdentityCommand(i)),
    getParameter: (i) => ssmClient.send(new ssmSdk.GetParameterCommand(i)),
    putParameter: (i) => ssmClient.send(new ssmSdk.PutParameterCommand(i)),
    describeInstances: (i) => ec2Client.send(new ec2Sdk.DescribeInstancesCommand(i)),
    describeVolumes: (i) => ec2Client.send(new ec2Sdk.DescribeVolumesCommand(i)),
    describeInstanceInformation: (i) => ssmClient.send(new ssmSdk.DescribeInstanceInformationCommand(i)),
    sendCommand: (i) => ssmClient.send(new ssmSdk.SendCommandCommand(i)),
    getCommandInvocation: (i) => ssmClient.send(new ssmSdk.GetCommandInvocationCommand(i)),
  };
}

export const adoptionProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: AdoptionInputs) {
    const adoption = await adoptExistingCluster(inputs, awsClient(inputs.region));
    return { id: inputs.initRecord, outs: { ...inputs, adoption } };
  },
  // A stack created with its record never asks AWS again. An adopted one does (pulumi preview too), and
  // changes only while old control-plane instances run: the update snapshots again before the groups change.
  async diff(_id: string, olds: AdoptionInputs & { adoption?: string }, news: AdoptionInputs) {
    if (!adoptedBefore(olds.adoption ?? "")) return { changes: false };
    return { changes: (await oldControlPlane(news, awsClient(news.region))).length > 0 };
  },
  async update(_id: string, olds: { adoption: string }, news: AdoptionInputs) {
    const again = await snapshotAgain(news, awsClient(news.region));
    return { outs: { ...news, adoption: again ?? olds.adoption } };
  },
};

export interface ExistingClusterAdoptionArgs {
  region: pulumi.Input<string>;
  accountId: pulumi.Input<string>;
  clusterName: pulumi.Input<string>;
  initRecord: pulumi.Input<string>;
  script: pulumi.Input<string>;
}

/** Where the build writes the serialized provider, beside the compiled module (scripts/compile.ts). */
export const SERIALIZED_PROVIDER_FILE = join(__dirname, "existingClusterAdoption.provider.js");

/** The provider as the engine's dynamic-provider host loads it (what `pulumi.dynamic.Resource` sends). */
export async function serializeProvider(): Promise<string> {
  // A local binding, as `pulumi.dynamic.Resource` captures its provider argument, not the module's exports.
  const local = adoptionProvider;
  return (await pulumi.runtime.serializeFunction(() => local, { allowSecrets: true })).text;
}

let serialized: string | Promise<string> | undefined;

/** A `pulumi.dynamic.Resource` with the provider serialized by the build (scripts/compile.ts). */
export class ExistingClusterAdoption extends pulumi.CustomResource {
  constructor(name: string, args: ExistingClusterAdoptionArgs, opts?: pulumi.CustomResourceOptions) {
    serialized ??= existsSync(SERIALIZED_PROVIDER_FILE)
      ? readFileSync(SERIALIZED_PROVIDER_FILE, "utf8")
      : serializeProvider();
    super(
      "pulumi-nodejs:dynamic:Resource",
      name,
      {
        managedTimeoutSeconds: TIMEOUTS.adoption.managedSeconds,
        commandTimeoutSeconds: TIMEOUTS.adoption.commandSeconds,
        pollSeconds: TIMEOUTS.adoption.pollSeconds,
        ...args,
        __provider: serialized,
      },
      opts,
    );
  }
}
