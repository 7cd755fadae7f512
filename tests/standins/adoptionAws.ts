/**
 * AWS as ExistingClusterAdoption sees it, following the APIs' documented contracts for the cases it covers:
 * - SSM GetParameter of a missing name throws ParameterNotFound; PutParameter without Overwrite of an
 *   existing name throws ParameterAlreadyExists, and a new parameter needs a Type (the SDK's own exception
 *   classes, so errors have the SDK's shape).
 * - STS GetCallerIdentity answers the account of the credentials in use.
 * - EC2 DescribeInstances applies `tag:<key>` and `instance-state-name` filters and pages its answer
 *   (NextToken); DescribeVolumes applies `tag:<key>` and `tag-key` filters, and pages likewise.
 * - DescribeInstanceInformation lists an instance only once its agent has registered (`managedAfter` calls).
 * - SendCommand refuses an instance that is not managed (InvalidInstanceId), an unknown document or a command
 *   without `commands`; a Comment is at most 100 characters, executionTimeout a number of seconds.
 * - GetCommandInvocation throws InvocationDoesNotExist right after SendCommand, then answers Pending,
 *   InProgress, and a final status. The command either runs for real (`sh -c`, as the agent's script runs,
 *   Success or Failed by its exit status and its output) or follows scripted statuses.
 */
import { spawn } from "child_process";
import type * as ec2 from "@aws-sdk/client-ec2";
import * as ssmSdk from "@aws-sdk/client-ssm";
import type { AdoptionClient } from "../../components/controlPlane/existingClusterAdoption";

export interface StandInInstance {
  id: string;
  state: "pending" | "running" | "stopping" | "stopped" | "shutting-down" | "terminated";
  tags: Record<string, string>;
  /** DescribeInstanceInformation calls before its agent is registered and Online. */
  managedAfter?: number;
}

export interface StandInVolume {
  id: string;
  tags: Record<string, string>;
  attachedTo?: string;
}

export interface StandInOptions {
  /** The account of the credentials (GetCallerIdentity); ACCOUNT unless given. */
  account?: string;
  parameters?: Record<string, string>;
  instances?: StandInInstance[];
  volumes?: StandInVolume[];
  /** How a sent command goes: run for real with this environment, or these statuses one per poll (and output). */
  command: { env: NodeJS.ProcessEnv } | { statuses: string[]; stdout?: string };
}

const meta = { $metadata: {} };

/** The account the stand-in's credentials are for, unless a test says otherwise. */
export const ACCOUNT = "123456789012";

/** One item a page: every answer but the last carries a NextToken (as AWS pages, in its own sizes). */
function paged<T>(found: T[], token: string | undefined): { page: T[]; next?: string } {
  const start = Number(token ?? 0);
  return { page: found.slice(start, start + 1), next: start + 1 < found.length ? String(start + 1) : undefined };
}

export class AdoptionAws implements AdoptionClient {
  readonly parameters: Map<string, string>;
  readonly calls: { op: string; input: unknown }[] = [];
  private infoCalls = 0;
  private invocations = new Map<string, { polls: number; exit?: number; out: string; err: string }>();

  constructor(private readonly options: StandInOptions) {
    this.parameters = new Map(Object.entries(options.parameters ?? {}));
  }

  private log(op: string, input: unknown) {
    this.calls.push({ op, input });
  }

  async getCallerIdentity(input: object) {
    this.log("GetCallerIdentity", input);
    const Account = this.options.account ?? ACCOUNT;
    return { Account, Arn: `arn:aws:iam::${Account}:user/deployer`, UserId: "AIDAEXAMPLE", ...meta };
  }

  async getParameter(input: ssmSdk.GetParameterCommandInput) {
    this.log("GetParameter", input);
    const value = this.parameters.get(input.Name!);
    if (value === undefined) throw new ssmSdk.ParameterNotFound({ message: "", ...meta });
    return { Parameter: { Name: input.Name, Value: value, Type: "String" as const }, ...meta };
  }

  async putParameter(input: ssmSdk.PutParameterCommandInput) {
    this.log("PutParameter", input);
    const exists = this.parameters.has(input.Name!);
    if (exists && !input.Overwrite)
      throw new ssmSdk.ParameterAlreadyExists({ message: "The parameter already exists.", ...meta });
    if (!exists && !input.Type) throw new ssmSdk.ValidationException({ message: "Type is required", ...meta });
    this.parameters.set(input.Name!, input.Value!);
    return { Version: 1, ...meta };
  }

  async describeInstances(input: ec2.DescribeInstancesCommandInput): Promise<ec2.DescribeInstancesCommandOutput> {
    this.log("DescribeInstances", input);
    const matches = (i: StandInInstance) =>
      (input.Filters ?? []).every((f) => {
        const value = f.Name === "instance-state-name" ? i.state : i.tags[f.Name!.replace(/^tag:/, "")];
        if (!f.Name!.startsWith("tag:") && f.Name !== "instance-state-name") throw new Error(`filter ${f.Name}`);
        return value !== undefined && (f.Values ?? []).includes(value);
      });
    const { page, next } = paged((this.options.instances ?? []).filter(matches), input.NextToken);
    return {
      Reservations: page.map((i) => ({ Instances: [{ InstanceId: i.id, State: { Name: i.state } }] })),
      NextToken: next,
      ...meta,
    };
  }

  async describeVolumes(input: ec2.DescribeVolumesCommandInput): Promise<ec2.DescribeVolumesCommandOutput> {
    this.log("DescribeVolumes", input);
    const matches = (v: StandInVolume) =>
      (input.Filters ?? []).every((f) => {
        if (f.Name === "tag-key") return Object.keys(v.tags).some((k) => (f.Values ?? []).includes(k));
        if (!f.Name!.startsWith("tag:")) throw new Error(`filter ${f.Name}`);
        const value = v.tags[f.Name!.slice(4)];
        return value !== undefined && (f.Values ?? []).includes(value);
      });
    const { page, next } = paged((this.options.volumes ?? []).filter(matches), input.NextToken);
    return {
      Volumes: page.map((v) => ({
        VolumeId: v.id,
        State: v.attachedTo ? ("in-use" as const) : ("available" as const),
        Attachments: v.attachedTo ? [{ InstanceId: v.attachedTo, VolumeId: v.id, State: "attached" as const }] : [],
      })),
      NextToken: next,
      ...meta,
    };
  }

  private online(id: string): boolean {
    const instance = (this.options.instances ?? []).find((i) => i.id === id);
    return instance?.state === "running" && this.infoCalls > (instance.managedAfter ?? 0);
  }

  async describeInstanceInformation(input: ssmSdk.DescribeInstanceInformationCommandInput) {
    this.log("DescribeInstanceInformation", input);
    this.infoCalls++;
    const ids = input.Filters?.find((f) => f.Key === "InstanceIds")?.Values ?? [];
    return {
      InstanceInformationList: ids
        .filter((id) => this.online(id))
        .map((id) => ({ InstanceId: id, PingStatus: "Online" as const })),
      ...meta,
    };
  }

  async sendCommand(input: ssmSdk.SendCommandCommandInput) {
    this.log("SendCommand", input);
    const ids = input.InstanceIds ?? [];
    if (ids.length === 0 || !ids.every((id) => this.online(id)))
      throw new ssmSdk.InvalidInstanceId({ message: "Instances not in a valid state for account", ...meta });
    if (input.DocumentName !== "AWS-RunShellScript")
      throw new ssmSdk.InvalidDocument({ message: `${input.DocumentName}`, ...meta });
    const commands = input.Parameters?.commands;
    const timeout = input.Parameters?.executionTimeout ?? ["3600"];
    if (!commands?.length || (input.Comment ?? "").length > 100 || !/^\d+$/.test(timeout[0]))
      throw new ssmSdk.InvalidParameters({ message: "invalid parameters", ...meta });
    const id = `cmd-${this.invocations.size + 1}`;
    const invocation: { polls: number; exit?: number; out: string; err: string } = { polls: 0, out: "", err: "" };
    this.invocations.set(id, invocation);
    if ("env" in this.options.command) {
      // The agent writes `commands` to a script and runs it with sh.
      const child = spawn("sh", ["-c", commands.join("\n")], {
        env: this.options.command.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.on("data", (d) => (invocation.out += d));
      child.stderr.on("data", (d) => (invocation.err += d));
      child.on("close", (code) => (invocation.exit = code ?? 1));
    }
    return { Command: { CommandId: id, Status: "Pending" as const }, ...meta };
  }

  async getCommandInvocation(input: ssmSdk.GetCommandInvocationCommandInput) {
    this.log("GetCommandInvocation", input);
    const invocation = this.invocations.get(input.CommandId!);
    if (!invocation) throw new ssmSdk.InvalidCommandId({ message: "", ...meta });
    const poll = invocation.polls++;
    if (poll === 0) throw new ssmSdk.InvocationDoesNotExist({ message: "", ...meta });
    let Status: string;
    if ("statuses" in this.options.command) {
      const statuses = this.options.command.statuses;
      Status = statuses[Math.min(poll - 1, statuses.length - 1)];
      invocation.out = this.options.command.stdout ?? "";
    } else if (poll === 1) Status = "Pending";
    else if (invocation.exit === undefined) Status = "InProgress";
    else Status = invocation.exit === 0 ? "Success" : "Failed";
    return {
      CommandId: input.CommandId,
      InstanceId: input.InstanceId,
      Status: Status as ssmSdk.CommandInvocationStatus,
      StatusDetails: Status,
      StandardOutputContent: invocation.out,
      StandardErrorContent: invocation.err,
      ...meta,
    };
  }
}
