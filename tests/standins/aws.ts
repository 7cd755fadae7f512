/**
 * One fake of AWS for every test: the state of the cluster's account (EC2 instances, Auto Scaling groups with
 * their sizes, tags, lifecycle hooks and instance refreshes, SSM parameters, S3 objects, CloudWatch metrics,
 * roles to assume), behind one HTTP server, and the front ends that reach that state:
 * - the AWS CLI, for bash: `cliScript(instanceId)` is the body of an `aws` that posts its arguments here and
 *   prints and exits as the CLI does;
 * - the Query protocol, for the SDK (AWS_ENDPOINT_URL = `url`; `sdkEnvironment` sets the machine's AWS
 *   environment around it);
 * - each instance's metadata service, IMDSv2 (`imdsUrl(instanceId)`).
 * Every call is recorded in `calls`; tests read the state itself (`instances`, `parameters`, `objects`,
 * `metrics`) rather than what was printed. `startAws` serves it from this process, on loopback;
 * awsProcess.ts serves the same fake from a child process, on a unix socket, for commands run synchronously
 * or in another network namespace.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { createServer, IncomingMessage, ServerResponse } from "http";
import type { AddressInfo } from "net";
import { tmpdir } from "os";
import { join, resolve } from "path";
import type { LifecycleHookSpec } from "../../components/nodes/lifecycleHooks";

export interface Instance {
  id: string;
  privateIp: string;
  zone: string;
  instanceType: string;
  mac: string;
  /** EC2's instance state: pending, running, stopped, terminated. */
  state: string;
  tags: Record<string, string>;
  /** Its Auto Scaling group, and its lifecycle state there (`Pending:Wait`, `InService`, `Terminating:Wait`...). */
  group?: string;
  lifecycleState?: string;
  /** Asks of DescribeAutoScalingInstances that still find it `Pending`, before its launch hook holds it. */
  pendingAsks?: number;
  /** Its health in its Auto Scaling group (DescribeAutoScalingInstances' HealthStatus): HEALTHY unless set. */
  health?: "HEALTHY" | "UNHEALTHY";
  /** RecordLifecycleActionHeartbeat calls accepted for it. */
  heartbeats: number;
  /** The launch template version it was launched from, in its group. */
  templateVersion?: string;
  /** While it terminates, the termination hooks whose actions are not completed yet: it waits for them all. */
  terminationActions?: string[];
}

type RefreshStep = { Status: string; StatusReason?: string } | string;

export interface Group {
  hooks: LifecycleHookSpec[];
  /** The status of its newest instance refresh at each DescribeInstanceRefreshes (the last repeats); none: no refresh. */
  refreshes: RefreshStep[];
  /** What DescribeAutoScalingGroups reports of it besides its instances (default: sizes 0, no zone, no tag). */
  settings?: GroupSettings;
}

export interface GroupSettings {
  minSize: number;
  maxSize: number;
  desiredCapacity: number;
  zones: string[];
  launchTemplate: { id: string; name: string; version: string };
  tags: Record<string, string>;
}

export interface IssuedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsOptions {
  /** The account's region: an SDK call signed for another is refused. */
  region?: string;
  /** The access key Auto Scaling accepts from the SDK: the identity the stack deploys as. */
  autoScalingKey?: string;
  /** Access key → the ARN GetCallerIdentity names for it. */
  identities?: Record<string, string>;
  /** Role ARN → the access key it trusts and the credentials it issues. */
  roles?: Record<string, { trusts: string; issues: IssuedCredentials }>;
  /** How long every call takes. */
  delayMs?: number;
  /** The access keys KMS lets decrypt the SecureString parameters (default: every caller). */
  decrypts?: string[];
}

const PARAMETER_TYPES = ["String", "StringList", "SecureString"] as const;

/** An SSM parameter as Parameter Store keeps it. */
export interface Parameter {
  value: string;
  type: (typeof PARAMETER_TYPES)[number];
  /** The KMS key a SecureString is encrypted under. */
  keyId?: string;
  /** 1 when created, one more at each overwrite. */
  version: number;
}

/** The key SSM encrypts a SecureString under when PutParameter names none: the account's default for SSM. */
export const DEFAULT_SSM_KEY = "alias/aws/ssm";

/** A Standard tier parameter's largest value, in characters (SSM API Reference, PutParameter, Value). */
const STANDARD_VALUE_LIMIT = 4096;

export interface AwsCall {
  /** `service:Action`, e.g. `ssm:GetParameter`. */
  action: string;
  /** The SDK's signing key; for the CLI, the instance whose role calls. */
  caller: string;
  region: string;
  params: Record<string, string>;
  /** When the call came in and when it was answered (Date.now()). */
  received: number;
  answered: number;
  /** The error code AWS answered with. */
  refused?: string;
}

/** An error as AWS answers it: its code, its message, and (the SDK front end) its HTTP status. */
class AwsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** The answer of a call whose effect happened but whose answer never reached the caller. */
class AnswerLost extends Error {}

/** Each service's error code for a throttled request (their API references' common errors). */
const THROTTLING: Record<string, string> = {
  ssm: "ThrottlingException",
  autoscaling: "Throttling",
  ec2: "RequestLimitExceeded",
};

/** What EC2 reports for the instance types the tests launch (DescribeInstanceTypes, NetworkInfo). */
const INSTANCE_TYPES: Record<string, { MaximumNetworkInterfaces: number; Ipv4AddressesPerInterface: number }> = {
  "t3.large": { MaximumNetworkInterfaces: 3, Ipv4AddressesPerInterface: 12 },
};

type Params = Record<string, string>;
type Handler = (p: Params, caller: string) => unknown;

export class AwsFake {
  readonly instances = new Map<string, Instance>();
  readonly groups = new Map<string, Group>();
  /** SSM parameters by name. */
  readonly parameters = new Map<string, Parameter>();
  /** S3 objects by `bucket/key`. */
  readonly objects = new Map<string, Buffer>();
  readonly metrics: { namespace: string; name: string; dimensions: Record<string, string>; value: number }[] = [];
  readonly calls: AwsCall[] = [];
  private readonly faults: { action: string; times: number; fault: "throttle" | "lose" }[] = [];
  private readonly observers: { action: string; then: (p: Params) => void }[] = [];
  private readonly refreshAsks = new Map<string, number>();

  constructor(
    readonly url: string,
    private readonly options: AwsOptions,
  ) {}

  imdsUrl(instanceId: string): string {
    return `${this.url}/imds/${instanceId}`;
  }

  /** The AWS CLI, as `instanceId`'s instance role, for this fake (`cliScript`). */
  cliScript(instanceId: string): string {
    return cliScript(this.url, instanceId);
  }

  /**
   * Writes a parameter, a new version when it exists: what PutParameter does once it accepts the call, and
   * how a test puts what someone else in the account put (Pulumi, an operator). SecureString by default.
   */
  putParameter(name: string, value: string, type: Parameter["type"] = "SecureString", keyId = DEFAULT_SSM_KEY): void {
    const version = (this.parameters.get(name)?.version ?? 0) + 1;
    this.parameters.set(name, { value, type, keyId: type === "SecureString" ? keyId : undefined, version });
  }

  /** Launches an instance into `group` (created with `hooks` when new), as Auto Scaling does. */
  launch(
    instance: Omit<Instance, "state" | "heartbeats" | "group" | "lifecycleState">,
    group?: { name: string; hooks: LifecycleHookSpec[] },
  ): Instance {
    const launched: Instance = { ...instance, state: "running", heartbeats: 0 };
    if (group) {
      if (!this.groups.has(group.name)) this.groups.set(group.name, { hooks: group.hooks, refreshes: [] });
      // An instance launching into a group with a launch hook waits in Pending:Wait until the hook is
      // completed or times out; without one it goes InService (Amazon EC2 Auto Scaling lifecycle hooks).
      const waits = this.hook(group.name, "autoscaling:EC2_INSTANCE_LAUNCHING");
      Object.assign(launched, { group: group.name, lifecycleState: waits ? "Pending:Wait" : "InService" });
    }
    this.instances.set(launched.id, launched);
    return launched;
  }

  /**
   * Auto Scaling terminating an instance: held in Terminating:Wait until the action of each termination hook
   * of its group is completed (Amazon EC2 Auto Scaling lifecycle hooks: an instance waits for all its hooks).
   */
  terminate(instanceId: string): void {
    const instance = this.instance(instanceId);
    const hooks = (instance.group && this.groups.get(instance.group)?.hooks) || [];
    instance.terminationActions = hooks
      .filter((h) => h.lifecycleTransition === "autoscaling:EC2_INSTANCE_TERMINATING")
      .map((h) => h.name);
    instance.lifecycleState = instance.terminationActions.length ? "Terminating:Wait" : "Terminating:Proceed";
  }

  /** The next `times` calls of `action` are throttled, before AWS does anything. */
  throttle(action: string, times: number): void {
    this.faults.push({ action, times, fault: "throttle" });
  }

  /** The next `times` calls of `action` take effect, but their answer is lost on the way back. */
  loseAnswers(action: string, times: number): void {
    this.faults.push({ action, times, fault: "lose" });
  }

  /** Runs `then` after every call of `action`: what someone else does meanwhile. */
  afterCall(action: string, then: (params: Params) => void): void {
    this.observers.push({ action, then });
  }

  instance(id: string): Instance {
    const found = this.instances.get(id);
    if (!found) throw new AwsError("InvalidInstanceID.NotFound", `The instance ID '${id}' does not exist`);
    return found;
  }

  private hook(groupName: string, transition: string, name?: string): LifecycleHookSpec | undefined {
    return this.groups
      .get(groupName)
      ?.hooks.find((h) => h.lifecycleTransition === transition && (name === undefined || h.name === name));
  }

  /**
   * A parameter as GetParameter(s) answer it. WithDecryption returns a SecureString's value, and is ignored for
   * String and StringList; without it a SecureString's value is its ciphertext (SSM API Reference,
   * GetParameter). Decrypting for a caller KMS refuses fails with AccessDeniedException (KMS Decrypt).
   */
  private read(name: string, decrypt: boolean, caller: string) {
    const { value, type, keyId, version } = this.parameters.get(name)!;
    const answer = { Name: name, Type: type, Value: value, Version: version };
    if (type !== "SecureString") return answer;
    if (!decrypt) return { ...answer, Value: Buffer.from(`${keyId}:${version}:${value}`).toString("base64") };
    if (this.options.decrypts && !this.options.decrypts.includes(caller))
      throw new AwsError("AccessDeniedException", "User is not authorized to decrypt");
    return answer;
  }

  /** The API operations, by `service:Action`, with their parameters as the Query protocol names them. */
  private readonly api: Record<string, Handler> = {
    // GetParameter of a missing name fails with ParameterNotFound (SSM API Reference, GetParameter).
    "ssm:GetParameter": (p, caller) => {
      if (!this.parameters.has(p.Name)) throw new AwsError("ParameterNotFound", "");
      return { Parameter: this.read(p.Name, p.WithDecryption === "true", caller) };
    },
    // GetParameters lists unknown names in InvalidParameters (SSM API Reference, GetParameters).
    "ssm:GetParameters": (p, caller) => {
      const names = JSON.parse(p.Names) as string[];
      const found = names.filter((n) => this.parameters.has(n));
      return {
        Parameters: found.map((n) => this.read(n, p.WithDecryption === "true", caller)),
        InvalidParameters: names.filter((n) => !this.parameters.has(n)),
      };
    },
    // SSM API Reference, PutParameter: an existing name is written only with Overwrite, else
    // ParameterAlreadyExists (what makes the init record a lock); a new parameter needs a Type, an update may
    // leave it out and keeps the parameter's, and may not change it (HierarchyTypeMismatchException); a
    // Standard tier value holds at most 4 KB. A SecureString is encrypted under KeyId, or without one the
    // account's default key. Each write is a new version.
    "ssm:PutParameter": (p) => {
      const existing = this.parameters.get(p.Name);
      if (existing && p.Overwrite !== "true")
        throw new AwsError("ParameterAlreadyExists", "The parameter already exists.");
      const type = (p.Type ?? existing?.type) as Parameter["type"] | undefined;
      if (!type || !PARAMETER_TYPES.includes(type))
        throw new AwsError("ValidationException", `A new parameter's Type is one of ${PARAMETER_TYPES.join(", ")}`);
      if (existing && type !== existing.type)
        throw new AwsError(
          "HierarchyTypeMismatchException",
          "Parameter Store doesn't support changing a parameter type.",
        );
      if (!p.Value || p.Value.length > STANDARD_VALUE_LIMIT)
        throw new AwsError(
          "ValidationException",
          `Standard tier parameters hold 1 to ${STANDARD_VALUE_LIMIT} characters.`,
        );
      this.putParameter(p.Name, p.Value, type, p.KeyId);
      return { Version: this.parameters.get(p.Name)!.version, Tier: "Standard" };
    },
    // DeleteParameter of a missing name fails with ParameterNotFound (SSM API Reference, DeleteParameter).
    "ssm:DeleteParameter": (p) => {
      if (!this.parameters.delete(p.Name)) throw new AwsError("ParameterNotFound", "");
      return {};
    },
    // Filters are ANDed, a filter's values ORed; `tag:KEY` matches a tag's value (EC2 API Reference,
    // DescribeInstances).
    "ec2:DescribeInstances": (p) => {
      const filters = Object.keys(p)
        .filter((k) => /^Filter\.\d+\.Name$/.test(k))
        .map((k) => {
          const n = k.split(".")[1];
          const values = Object.keys(p)
            .filter((v) => v.startsWith(`Filter.${n}.Value.`))
            .map((v) => p[v]);
          return { name: p[k], values };
        });
      const matches = (i: Instance) =>
        filters.every(({ name, values }) => {
          if (name === "instance-state-name") return values.includes(i.state);
          if (name === "instance-id") return values.includes(i.id);
          if (name.startsWith("tag:")) return values.includes(i.tags[name.slice(4)]);
          throw new AwsError("InvalidParameterValue", `The filter '${name}' is invalid`);
        });
      const instances = [...this.instances.values()].filter(matches).map((i) => ({
        InstanceId: i.id,
        PrivateIpAddress: i.privateIp,
        PrivateDnsName: privateDnsName(i),
        State: { Name: i.state },
        Tags: Object.entries(i.tags).map(([Key, Value]) => ({ Key, Value })),
      }));
      return { Reservations: instances.length ? [{ Instances: instances }] : [] };
    },
    // An unknown type is InvalidInstanceType (EC2 API Reference, DescribeInstanceTypes).
    "ec2:DescribeInstanceTypes": (p) => {
      const type = p["InstanceType.1"];
      const info = INSTANCE_TYPES[type];
      if (!info)
        throw new AwsError("InvalidInstanceType", `The following supplied instance types do not exist: [${type}]`);
      return { InstanceTypes: [{ InstanceType: type, NetworkInfo: info }] };
    },
    // An instance in no group is left out of the answer, not an error (Auto Scaling API Reference,
    // DescribeAutoScalingInstances).
    "autoscaling:DescribeAutoScalingInstances": (p) => {
      const ids = Object.keys(p)
        .filter((k) => /^InstanceIds\.member\.\d+$/.test(k))
        .map((k) => p[k]);
      const found = ids.map((id) => this.instances.get(id)).filter((i): i is Instance => Boolean(i?.group));
      return {
        AutoScalingInstances: found.map((instance) => {
          let state = instance.lifecycleState;
          if (instance.pendingAsks) {
            instance.pendingAsks--;
            state = "Pending";
          }
          return {
            InstanceId: instance.id,
            AutoScalingGroupName: instance.group,
            LifecycleState: state,
            HealthStatus: instance.health ?? "HEALTHY",
          };
        }),
      };
    },
    // Sets an instance's health in its group; an instance in no group is a ValidationError (Auto Scaling API
    // Reference, SetInstanceHealth). Auto Scaling then replaces an unhealthy InService instance: here the
    // test terminates it when it needs to.
    "autoscaling:SetInstanceHealth": (p) => {
      const instance = this.instances.get(p.InstanceId);
      if (!instance?.group)
        throw new AwsError(
          "ValidationError",
          `Instance Id not found - No managed instance found for instance ID: ${p.InstanceId}`,
        );
      if (p.HealthStatus !== "Healthy" && p.HealthStatus !== "Unhealthy")
        throw new AwsError("ValidationError", "HealthStatus must be Healthy or Unhealthy");
      instance.health = p.HealthStatus === "Healthy" ? "HEALTHY" : "UNHEALTHY";
      return {};
    },
    // A heartbeat extends the wait of an instance held by that hook; like a completion, it needs an action
    // that waits (Auto Scaling API Reference, RecordLifecycleActionHeartbeat).
    "autoscaling:RecordLifecycleActionHeartbeat": (p) => {
      this.waiting(p).heartbeats++;
      return {};
    },
    // Only an instance waiting on that hook of that group has an action to complete: anything else is a
    // ValidationError "No active Lifecycle Action found with instance ID ..." (Auto Scaling's own text for
    // an action completed already; for a wrong group or hook name its text is not documented, so the tests
    // of a wrong name check the instance's state). CONTINUE lets a launch go InService, ABANDON terminates it.
    "autoscaling:CompleteLifecycleAction": (p) => {
      const instance = this.waiting(p);
      const result = p.LifecycleActionResult;
      if (result !== "CONTINUE" && result !== "ABANDON")
        throw new AwsError("ValidationError", "LifecycleActionResult must be CONTINUE or ABANDON");
      if (instance.lifecycleState === "Terminating:Wait") {
        instance.terminationActions = instance.terminationActions?.filter((h) => h !== p.LifecycleHookName);
        if (!instance.terminationActions?.length) instance.lifecycleState = "Terminating:Proceed";
      } else instance.lifecycleState = result === "CONTINUE" ? "InService" : "Terminating";
      return {};
    },
    // Groups by name (AutoScalingGroupNames.member.N) and filters (Filters.member.N: `tag:<key>`, `tag-key`,
    // `tag-value`; a filter's values ORed, filters ANDed), at most MaxRecords (default 50, at most 100) a page,
    // the rest behind NextToken (Auto Scaling API Reference, DescribeAutoScalingGroups and Filter).
    "autoscaling:DescribeAutoScalingGroups": (p) => {
      const list = (prefix: string) =>
        Object.keys(p)
          .filter((k) => new RegExp(`^${prefix.replace(/\./g, "\\.")}\\d+$`).test(k))
          .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
          .map((k) => p[k]);
      const names = list("AutoScalingGroupNames.member.");
      const filters = Object.keys(p)
        .filter((k) => /^Filters\.member\.\d+\.Name$/.test(k))
        .map((k) => ({ name: p[k], values: list(`${k.replace(/Name$/, "Values")}.member.`) }));
      const matches = (tags: Record<string, string>) =>
        filters.every(({ name, values }) => {
          if (name === "tag-key") return Object.keys(tags).some((k) => values.includes(k));
          if (name === "tag-value") return Object.values(tags).some((v) => values.includes(v));
          if (name.startsWith("tag:")) return values.includes(tags[name.slice(4)]);
          throw new AwsError("ValidationError", `Filter ${name} is not valid`);
        });
      const max = p.MaxRecords === undefined ? 50 : Number(p.MaxRecords);
      if (!(max >= 1 && max <= 100)) throw new AwsError("ValidationError", "MaxRecords must be between 1 and 100");
      const all = [...this.groups]
        .filter(([name, g]) => (names.length === 0 || names.includes(name)) && matches(g.settings?.tags ?? {}))
        .sort(([a], [b]) => a.localeCompare(b));
      const start = p.NextToken === undefined ? 0 : Number(p.NextToken);
      if (!Number.isInteger(start) || start < 0 || start > all.length)
        throw new AwsError("InvalidNextToken", "The token is invalid");
      const page = all.slice(start, start + max);
      return {
        AutoScalingGroups: page.map(([name, g]) => this.describeGroup(name, g)),
        NextToken: start + max < all.length ? String(start + max) : undefined,
      };
    },
    // A group's refreshes, newest first; a group that never had one answers an empty list (Auto Scaling API
    // Reference, DescribeInstanceRefreshes). Each call here answers the group's next scripted status.
    "autoscaling:DescribeInstanceRefreshes": (p) => {
      const name = p.AutoScalingGroupName;
      const script = this.groups.get(name)?.refreshes ?? [];
      const n = (this.refreshAsks.get(name) ?? -1) + 1;
      this.refreshAsks.set(name, n);
      const step = script[Math.min(n, script.length - 1)];
      if (step === undefined) return { InstanceRefreshes: [] };
      const { Status, StatusReason } = typeof step === "string" ? { Status: step, StatusReason: undefined } : step;
      return {
        InstanceRefreshes: [
          {
            AutoScalingGroupName: name,
            InstanceRefreshId: `r-${n}`,
            Status,
            StatusReason,
            StartTime: "2026-01-01T00:00:00Z",
          },
        ],
      };
    },
    // A missing key is 404 to a caller that may list the bucket (S3 API Reference, GetObject; the fake
    // checks no permission).
    "s3:GetObject": (p) => {
      const body = this.objects.get(`${p.Bucket}/${p.Key}`);
      if (!body) throw new AwsError("404", `Key "${p.Key}" does not exist`, 404);
      return { Body: body };
    },
    // The bucket's keys under the prefix, in key order; none is no Contents at all (S3 API Reference,
    // ListObjectsV2).
    "s3:ListObjectsV2": (p) => {
      const keys = [...this.objects.keys()]
        .filter((k) => k.startsWith(`${p.Bucket}/${p.Prefix ?? ""}`))
        .map((k) => k.slice(p.Bucket.length + 1))
        .sort();
      return keys.length ? { Contents: keys.map((Key) => ({ Key })) } : {};
    },
    // Each object is stored whole under its key; a second upload replaces it (S3 PutObject).
    "s3:PutObject": (p) => {
      this.objects.set(`${p.Bucket}/${p.Key}`, readFileSync(p.Body));
      return {};
    },
    // One datum per call here, with its dimensions (CloudWatch API Reference, PutMetricData).
    "monitoring:PutMetricData": (p) => {
      const dimensions = Object.fromEntries(
        Object.keys(p)
          .filter((k) => /^MetricData\.member\.1\.Dimensions\.member\.\d+\.Name$/.test(k))
          .map((k) => [p[k], p[k.replace(/Name$/, "Value")]]),
      );
      const metric = "MetricData.member.1";
      this.metrics.push({
        namespace: p.Namespace,
        name: p[`${metric}.MetricName`],
        dimensions,
        value: Number(p[`${metric}.Value`]),
      });
      return {};
    },
    // Who the caller is: the ARN `identities` gives its key, else a user named after the key (STS API
    // Reference, GetCallerIdentity: any caller may call it).
    "sts:GetCallerIdentity": (_p, caller) => ({
      Account: "000000000000",
      Arn: this.options.identities?.[caller] ?? `arn:aws:iam::000000000000:user/${caller}`,
      UserId: caller,
    }),
    // Only a caller the role's trust policy names gets its credentials; anyone else AccessDenied (STS API
    // Reference, AssumeRole).
    "sts:AssumeRole": (p, caller) => {
      const role = this.options.roles?.[p.RoleArn];
      if (!role || role.trusts !== caller)
        throw new AwsError(
          "AccessDenied",
          `${caller} is not authorized to perform sts:AssumeRole on ${p.RoleArn}`,
          403,
        );
      return { Credentials: role.issues };
    },
  };

  /** A group as DescribeAutoScalingGroups answers it: settings, tags, and the instances in it. */
  private describeGroup(name: string, group: Group) {
    const settings = group.settings;
    const template = settings?.launchTemplate;
    return {
      AutoScalingGroupName: name,
      LaunchTemplate: template && {
        LaunchTemplateId: template.id,
        LaunchTemplateName: template.name,
        Version: template.version,
      },
      MinSize: settings?.minSize ?? 0,
      MaxSize: settings?.maxSize ?? 0,
      DesiredCapacity: settings?.desiredCapacity ?? 0,
      AvailabilityZones: settings?.zones ?? [],
      HealthCheckType: "EC2",
      CreatedTime: "2026-01-01T00:00:00Z",
      Instances: [...this.instances.values()]
        .filter((i) => i.group === name)
        .map((i) => ({
          InstanceId: i.id,
          InstanceType: i.instanceType,
          AvailabilityZone: i.zone,
          LifecycleState: i.lifecycleState,
          HealthStatus: "Healthy",
          LaunchTemplate: template && {
            LaunchTemplateId: template.id,
            LaunchTemplateName: template.name,
            Version: i.templateVersion ?? template.version,
          },
          ProtectedFromScaleIn: false,
        })),
      Tags: Object.entries(settings?.tags ?? {}).map(([Key, Value]) => ({
        ResourceId: name,
        ResourceType: "auto-scaling-group",
        Key,
        Value,
        PropagateAtLaunch: false,
      })),
    };
  }

  private waiting(p: Params): Instance {
    const instance = this.instances.get(p.InstanceId);
    const transition =
      instance?.lifecycleState === "Terminating:Wait"
        ? "autoscaling:EC2_INSTANCE_TERMINATING"
        : "autoscaling:EC2_INSTANCE_LAUNCHING";
    const waits = instance?.lifecycleState === "Pending:Wait" || instance?.lifecycleState === "Terminating:Wait";
    const completed =
      instance?.lifecycleState === "Terminating:Wait" && !instance.terminationActions?.includes(p.LifecycleHookName);
    if (
      !instance ||
      !waits ||
      completed ||
      instance.group !== p.AutoScalingGroupName ||
      !this.hook(instance.group, transition, p.LifecycleHookName)
    )
      throw new AwsError("ValidationError", `No active Lifecycle Action found with instance ID ${p.InstanceId}`);
    return instance;
  }

  /**
   * Runs one call against the state, recording it; throws AwsError or AnswerLost. `refusal`: the front end
   * refuses the call as it came (its signature), before any effect.
   */
  async call(action: string, params: Params, caller: string, region: string, refusal?: AwsError): Promise<unknown> {
    const call: AwsCall = { action, caller, region, params, received: Date.now(), answered: 0 };
    this.calls.push(call);
    await new Promise((r) => setTimeout(r, this.options.delayMs ?? 0));
    call.answered = Date.now();
    const fault = refusal ? undefined : this.faults.find((f) => f.action === action && f.times > 0);
    if (fault) fault.times--;
    try {
      if (refusal) throw refusal;
      const handler = this.api[action];
      if (!handler) throw new AwsError("InvalidAction", `the fake does not answer ${action}`);
      if (fault?.fault === "throttle") throw new AwsError(THROTTLING[action.split(":")[0]], "Rate exceeded");
      try {
        const answer = handler(params, caller);
        if (fault?.fault === "lose") throw new AnswerLost();
        return answer;
      } finally {
        for (const o of this.observers) if (o.action === action) o.then(params);
      }
    } catch (error) {
      if (error instanceof AwsError) call.refused = error.code;
      throw error;
    }
  }
}

// ---- The AWS CLI front end ----

/** Each CLI command: its API action, and how its options become the action's parameters. */
const COMMANDS: Record<string, { action: string; operation: string }> = {
  "ssm get-parameter": { action: "ssm:GetParameter", operation: "GetParameter" },
  "ssm put-parameter": { action: "ssm:PutParameter", operation: "PutParameter" },
  "ssm delete-parameter": { action: "ssm:DeleteParameter", operation: "DeleteParameter" },
  "ec2 describe-instances": { action: "ec2:DescribeInstances", operation: "DescribeInstances" },
  "ec2 describe-instance-types": { action: "ec2:DescribeInstanceTypes", operation: "DescribeInstanceTypes" },
  "autoscaling describe-auto-scaling-instances": {
    action: "autoscaling:DescribeAutoScalingInstances",
    operation: "DescribeAutoScalingInstances",
  },
  "autoscaling record-lifecycle-action-heartbeat": {
    action: "autoscaling:RecordLifecycleActionHeartbeat",
    operation: "RecordLifecycleActionHeartbeat",
  },
  "autoscaling complete-lifecycle-action": {
    action: "autoscaling:CompleteLifecycleAction",
    operation: "CompleteLifecycleAction",
  },
  "autoscaling set-instance-health": { action: "autoscaling:SetInstanceHealth", operation: "SetInstanceHealth" },
  "cloudwatch put-metric-data": { action: "monitoring:PutMetricData", operation: "PutMetricData" },
  "s3 cp": { action: "s3:PutObject", operation: "PutObject" },
  "s3api list-objects-v2": { action: "s3:ListObjectsV2", operation: "ListObjectsV2" },
};

/** Options that take no value, and those that take several (up to the next option). */
const FLAGS = ["with-decryption", "overwrite", "only-show-errors", "no-should-respect-grace-period"];
const LISTS = ["filters", "instance-ids", "instance-types"];

/** `--kebab-case` → the API's `PascalCase` parameter name. */
const pascal = (option: string) => option.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

interface CliCommand {
  command: string;
  options: Record<string, string[]>;
  positional: string[];
}

function parseCli(args: string[]): CliCommand {
  const [service, operation, ...rest] = args;
  const options: Record<string, string[]> = {};
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (!rest[i].startsWith("--")) {
      positional.push(rest[i]);
      continue;
    }
    const name = rest[i].slice(2);
    const values: string[] = (options[name] = []);
    if (FLAGS.includes(name)) continue;
    do values.push(rest[++i]);
    while (LISTS.includes(name) && i + 1 < rest.length && !rest[i + 1].startsWith("--"));
  }
  return { command: `${service} ${operation}`, options, positional };
}

/** The CLI's options as the Query protocol's parameters (`--filters Name=x,Values=a,b` → Filter.1.Name ...). */
function cliParams({ command, options, positional }: CliCommand, cwd: string): Params {
  const p: Params = {};
  for (const [name, values] of Object.entries(options)) {
    if (["region", "query", "output", "sse", "only-show-errors"].includes(name)) continue;
    if (name === "filters") {
      values.forEach((f, n) => {
        const [, key, list] = /^Name=([^,]+),Values=(.*)$/.exec(f) ?? [];
        if (!key) throw new CliUsage(`Error parsing parameter '--filters': ${f}`);
        p[`Filter.${n + 1}.Name`] = key;
        list.split(",").forEach((v, m) => (p[`Filter.${n + 1}.Value.${m + 1}`] = v));
      });
    } else if (name === "instance-ids") values.forEach((v, n) => (p[`InstanceIds.member.${n + 1}`] = v));
    else if (name === "instance-types") values.forEach((v, n) => (p[`InstanceType.${n + 1}`] = v));
    else if (command === "cloudwatch put-metric-data" && name !== "namespace") {
      if (name === "dimensions")
        values[0].split(",").forEach((d, n) => {
          const [k, v] = d.split("=");
          p[`MetricData.member.1.Dimensions.member.${n + 1}.Name`] = k;
          p[`MetricData.member.1.Dimensions.member.${n + 1}.Value`] = v;
        });
      else p[`MetricData.member.1.${pascal(name)}`] = values[0];
    } else if (name.startsWith("no-")) p[pascal(name.slice(3))] = "false";
    else p[pascal(name)] = FLAGS.includes(name) ? "true" : values[0];
  }
  if (command === "s3 cp" && positional[0]?.startsWith("s3://")) {
    const [from, to] = positional;
    const source = /^s3:\/\/([^/]+)\/(.+)$/.exec(from);
    if (!source || !to) throw new CliUsage(`usage: aws s3 cp <S3Uri> <LocalPath>`);
    Object.assign(p, { Bucket: source[1], Key: source[2], Target: resolve(cwd, to) });
  } else if (command === "s3 cp") {
    // `aws s3 cp LOCAL s3://BUCKET/KEY`: an upload (PutObject) of the local file.
    const [from, to] = positional;
    const target = /^s3:\/\/([^/]+)\/(.+)$/.exec(to ?? "");
    if (!from || !target || !existsSync(resolve(cwd, from))) throw new CliUsage(`usage: aws s3 cp <LocalPath> <S3Uri>`);
    Object.assign(p, { Body: resolve(cwd, from), Bucket: target[1], Key: target[2] });
  }
  return p;
}

/** A command line the CLI refuses before calling AWS: usage errors exit 252 (AWS CLI return codes). */
class CliUsage extends Error {}

/**
 * `--query`, in the subset of JMESPath the bootstrap writes: `A.B`, `A[0]`, `A[]` (a flattening projection)
 * and a multiselect list `[A,B]`.
 */
function search(expression: string, data: unknown): unknown {
  const tokens = expression.match(/\[[^\]]*\]|[^.[\]]+/g) ?? [];
  const apply = (rest: string[], value: unknown): unknown => {
    if (rest.length === 0 || value === null || value === undefined) return value ?? null;
    const [token, ...tail] = rest;
    if (token === "[]") {
      if (!Array.isArray(value)) return null;
      const out = value
        .flat(1)
        .map((v) => apply(tail, v))
        .filter((v) => v !== null);
      return tail.includes("[]") ? out.flat(1) : out;
    }
    const index = /^\[(\d+)\]$/.exec(token);
    if (index) return apply(tail, Array.isArray(value) ? value[Number(index[1])] : null);
    if (token.startsWith("["))
      return token
        .slice(1, -1)
        .split(",")
        .map((k) => apply([k, ...tail], value));
    return apply(tail, (value as Record<string, unknown>)[token]);
  };
  return apply(tokens, data);
}

/**
 * `--output text`: a list's scalars tab-separated on one line, a list of lists a line each (a multiselect
 * list's rows), a missing value as `None` (AWS CLI User Guide, "Text output format"); the default output is
 * JSON.
 */
function format(value: unknown, output: string | undefined): string {
  if (output !== "text") return value === undefined ? "" : `${JSON.stringify(value, null, 4)}\n`;
  const text = (v: unknown): string => (v === null || v === undefined ? "None" : String(v));
  if (Array.isArray(value) && value.every(Array.isArray))
    return value.map((row: unknown[]) => `${row.map(text).join("\t")}\n`).join("");
  if (Array.isArray(value)) return value.length ? `${value.map(text).join("\t")}\n` : "";
  return `${text(value)}\n`;
}

/** What the CLI prints and exits with for one command line (AWS CLI v2 return codes: 254 a service error). */
/** `aws s3 cp s3://BUCKET/KEY LOCAL`: a download (GetObject), the other way round from an upload. */
const DOWNLOAD = { action: "s3:GetObject", operation: "GetObject" };
const isDownload = (cli: CliCommand) => cli.command === "s3 cp" && (cli.positional[0] ?? "").startsWith("s3://");

async function runCli(fake: AwsFake, instanceId: string, args: string[], cwd: string) {
  const cli = parseCli(args);
  const command = isDownload(cli) ? DOWNLOAD : COMMANDS[cli.command];
  const region = cli.options.region?.[0] ?? "";
  if (!command)
    return { status: 252, stdout: "", stderr: `aws: error: argument operation: Invalid choice: ${cli.command}\n` };
  try {
    const params = cliParams(cli, cwd);
    const answer = await fake.call(command.action, params, instanceId, region);
    if (command === DOWNLOAD) writeFileSync(params.Target, (answer as { Body: Buffer }).Body);
    // These print nothing: a completed lifecycle action, a heartbeat, a metric; an upload with --only-show-errors.
    const silent =
      ["s3 cp", "cloudwatch put-metric-data"].includes(cli.command) || command.action.includes("Lifecycle");
    const query = cli.options.query?.[0];
    const stdout = silent ? "" : format(query ? search(query, answer) : answer, cli.options.output?.[0]);
    return { status: 0, stdout, stderr: "" };
  } catch (error) {
    if (error instanceof CliUsage) return { status: 252, stdout: "", stderr: `${error.message}\n` };
    if (error instanceof AnswerLost)
      return {
        status: 255,
        stdout: "",
        stderr: `Connection was closed before we received a valid response from endpoint URL: "https://${cli.command.split(" ")[0]}.${region}.amazonaws.com/".\n`,
      };
    if (!(error instanceof AwsError)) throw error;
    // The s3 commands exit 1, and find a missing key by HeadObject first (AWS CLI return codes).
    if (command === DOWNLOAD)
      return {
        status: 1,
        stdout: "",
        stderr: `fatal error: An error occurred (${error.code}) when calling the HeadObject operation: ${error.message}\n`,
      };
    return {
      status: 254,
      stdout: "",
      stderr: `\nAn error occurred (${error.code}) when calling the ${command.operation} operation: ${error.message}\n`,
    };
  }
}

/** Bash's own quoting of a string, for the script the CLI front end answers with. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

// ---- The Query protocol front end, for the SDK ----

const QUERY_SERVICES = ["autoscaling", "sts"];

/** A value as the Query protocol's XML carries it: members of lists, fields by name. */
function xml(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.map((v) => `<member>${xml(v)}</member>`).join("");
  if (typeof value === "object")
    return Object.entries(value)
      .map(([k, v]) => (v === undefined ? "" : `<${k}>${xml(v)}</${k}>`))
      .join("");
  return String(value);
}

/**
 * A Query-protocol call signed with Signature Version 4: the key and region come from the Authorization
 * header's credential scope. A call signed for another region is refused with SignatureDoesNotMatch; Auto
 * Scaling refuses a key it does not know with InvalidClientTokenId (AWS's error codes for those cases).
 */
async function runQuery(fake: AwsFake, options: AwsOptions, req: IncomingMessage, res: ServerResponse) {
  const params = Object.fromEntries(new URLSearchParams(await body(req)));
  const scope = /Credential=([^/]+)\/\d+\/([^/]+)\/([^/]+)\//.exec(String(req.headers.authorization)) ?? [];
  const [, accessKeyId = "", region = "", service = ""] = scope;
  const { Action } = params;
  const rest = { ...params };
  delete rest.Action;
  delete rest.Version;
  const answer = (status: number, text: string) => res.writeHead(status, { "content-type": "text/xml" }).end(text);
  const action = `${service}:${Action}`;
  const refusal = !QUERY_SERVICES.includes(service)
    ? new AwsError("InvalidAction", `the fake does not answer ${action}`)
    : options.region && region !== options.region
      ? new AwsError("SignatureDoesNotMatch", `Credential should be scoped to a valid region, not '${region}'`, 403)
      : service === "autoscaling" && accessKeyId !== options.autoScalingKey
        ? new AwsError("InvalidClientTokenId", "The security token included in the request is invalid.", 403)
        : undefined;
  try {
    let result = await fake.call(action, rest, accessKeyId, region, refusal);
    if (Action === "AssumeRole") {
      const c = (result as { Credentials: IssuedCredentials }).Credentials;
      result = {
        Credentials: {
          AccessKeyId: c.accessKeyId,
          SecretAccessKey: c.secretAccessKey,
          SessionToken: c.sessionToken ?? "token",
          Expiration: "2099-01-01T00:00:00Z",
        },
        AssumedRoleUser: { Arn: `${rest.RoleArn}/${rest.RoleSessionName}`, AssumedRoleId: "AROAFAKE:s" },
      };
    }
    const namespace =
      service === "sts"
        ? "https://sts.amazonaws.com/doc/2011-06-15/"
        : "http://autoscaling.amazonaws.com/doc/2011-01-01/";
    answer(
      200,
      `<${Action}Response xmlns="${namespace}"><${Action}Result>${xml(result)}</${Action}Result>` +
        `<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></${Action}Response>`,
    );
  } catch (error) {
    if (!(error instanceof AwsError)) throw error;
    answer(
      error.status,
      `<ErrorResponse><Error><Type>Sender</Type><Code>${error.code}</Code><Message>${error.message}</Message></Error>` +
        "<RequestId>r</RequestId></ErrorResponse>",
    );
  }
}

// ---- SSM's JSON 1.1 protocol front end, for the SDK ----

/** A JSON 1.1 call (`X-Amz-Target: AmazonSSM.<Action>`), signed with the caller's key; lists and flags as JSON. */
async function runJson(fake: AwsFake, req: IncomingMessage, res: ServerResponse) {
  const request = JSON.parse((await body(req)) || "{}") as Record<string, unknown>;
  const params = Object.fromEntries(
    Object.entries(request).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
  const [, accessKeyId = "", region = ""] =
    /Credential=([^/]+)\/\d+\/([^/]+)\//.exec(String(req.headers.authorization)) ?? [];
  const action = `ssm:${String(req.headers["x-amz-target"]).slice("AmazonSSM.".length)}`;
  const answer = (status: number, value: unknown) =>
    res.writeHead(status, { "content-type": "application/x-amz-json-1.1" }).end(JSON.stringify(value));
  try {
    answer(200, await fake.call(action, params, accessKeyId, region));
  } catch (error) {
    if (!(error instanceof AwsError)) throw error;
    answer(error.status, { __type: error.code, message: error.message });
  }
}

// ---- The instance metadata service ----

export function privateDnsName(i: Instance): string {
  const region = i.zone.slice(0, -1);
  const domain = region === "us-east-1" ? "ec2.internal" : `${region}.compute.internal`;
  return `ip-${i.privateIp.replace(/\./g, "-")}.${domain}`;
}

const IMDS_TOKEN = "fake-imds-token";

/** IMDSv2: a session token first (PUT /latest/api/token), then metadata only with that token; 404 for a key it lacks. */
function imds(fake: AwsFake, instanceId: string, req: IncomingMessage, res: ServerResponse, path: string) {
  if (req.method === "PUT" && path === "/latest/api/token") return res.end(IMDS_TOKEN);
  if (req.headers["x-aws-ec2-metadata-token"] !== IMDS_TOKEN) return res.writeHead(401).end();
  const i = fake.instances.get(instanceId);
  if (!i) return res.writeHead(404).end();
  const metadata: Record<string, string> = {
    "instance-id": i.id,
    "local-ipv4": i.privateIp,
    // EC2's private DNS name (the EC2 user guide's "Amazon EC2 instance hostname types", IP names): the
    // instance's address with dashes, under ec2.internal in us-east-1 and <region>.compute.internal elsewhere.
    "local-hostname": privateDnsName(i),
    "instance-type": i.instanceType,
    mac: i.mac,
    "placement/availability-zone": i.zone,
  };
  // The Auto Scaling lifecycle state the instance is headed for (instance metadata categories,
  // autoscaling/target-lifecycle-state): Terminated once Auto Scaling terminates it.
  if (i.group)
    metadata["autoscaling/target-lifecycle-state"] = i.lifecycleState?.startsWith("Terminating")
      ? "Terminated"
      : "InService";
  const key = path.replace(/^\/latest\/meta-data\//, "");
  if (!(key in metadata)) return res.writeHead(404).end();
  return res.end(metadata[key]);
}

/** A request's body, as text. */
export const body = (req: IncomingMessage) =>
  new Promise<string>((done) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => done(text));
  });

/** Every front end of `fake`, as one HTTP request handler. */
export function serveAws(fake: AwsFake, options: AwsOptions) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/";
    const imdsPath = /^\/imds\/([^/]+)(\/.*)$/.exec(url);
    if (imdsPath) return imds(fake, imdsPath[1], req, res, imdsPath[2]);
    const cli = /^\/cli\/([^/]+)$/.exec(url);
    if (cli) {
      const form = new URLSearchParams(await body(req));
      const out = await runCli(fake, cli[1], form.getAll("arg"), form.get("cwd") ?? "/");
      return res.end(`printf %s ${quoted(out.stdout)}; printf %s ${quoted(out.stderr)} >&2; exit ${out.status}\n`);
    }
    if (String(req.headers["x-amz-target"] ?? "").startsWith("AmazonSSM.")) return runJson(fake, req, res);
    return runQuery(fake, options, req, res);
  };
}

/**
 * A bash body for `aws`, run as `instanceId`'s instance role: its arguments go to the fake at `url` (through
 * `socket` when it listens on one), which answers with what the CLI prints and its exit status. A fake it
 * cannot reach is an endpoint the CLI cannot connect to: exit 255, as the CLI's.
 */
export function cliScript(url: string, instanceId: string, socket?: string): string {
  const through = socket ? `--unix-socket ${quoted(socket)} ` : "";
  // A value written file://PATH is the file's text, read by the CLI where it runs (the AWS CLI's
  // "Loading parameters from a file"): the bootstrap passes secrets so, never on a command line.
  return `args=(); for a in "$@"; do
  if [[ $a == file://* ]]; then a=$(cat "\${a#file://}" && echo .) || exit 255; a=\${a%.}; fi
  args+=(--data-urlencode "arg=$a")
done
answer=$(/usr/bin/curl -sS ${through}--data-urlencode "cwd=$PWD" "\${args[@]}" "${url}/cli/${instanceId}") ||
  { echo 'Could not connect to the endpoint URL: "${url}"' >&2; exit 255; }
eval "$answer"`;
}

/** A new directory holding `aws`, an executable of `script` (a `cliScript`): for the PATH of what calls AWS. */
export function cliDirectory(script: string): string {
  const dir = mkdtempSync(join(tmpdir(), "aws-cli-"));
  writeFileSync(join(dir, "aws"), `#!/bin/bash\n${script}\n`, { mode: 0o755 });
  return dir;
}

/** Starts a fake account; `close` stops its server (it never keeps the process alive by itself). */
export async function startAws(options: AwsOptions = {}): Promise<AwsFake & { close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  server.unref();
  const fake = new AwsFake(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, options);
  server.on("request", serveAws(fake, options));
  return Object.assign(fake, {
    close: () => new Promise<void>((done) => server.close(() => done())),
  });
}

// ---- The machine's AWS environment, for the SDK ----

export const AMBIENT_KEY = "AKIAAMBIENTDEFAULT";
export const AMBIENT_REGION = "ap-south-1";

/**
 * The AWS environment of a machine running `pulumi up`: shared files with named profiles, the fake as the
 * endpoint, and an ambient identity and region for the SDK's default chain to find (the `default` profile,
 * `AWS_REGION`): another identity and another region than the stack's, so that a call made with the default
 * chain instead of the stack's config reaches the fake as someone else. Returns what puts it back.
 */
export function sdkEnvironment(fake: AwsFake, profiles: Record<string, string>): () => void {
  // Fresh files each time: the SDK caches shared files by path.
  const dir = mkdtempSync(join(tmpdir(), "aws-env-"));
  const credentials = Object.entries({ default: AMBIENT_KEY, ...profiles })
    .map(([name, key]) => `[${name}]\naws_access_key_id = ${key}\naws_secret_access_key = secret-of-${key}\n`)
    .join("\n");
  writeFileSync(join(dir, "credentials"), credentials);
  // A profile region that is not the stack's either: the stack's aws:region wins.
  writeFileSync(
    join(dir, "config"),
    Object.keys(profiles)
      .map((name) => `[profile ${name}]\nregion = eu-north-1\n`)
      .join("\n"),
  );
  const vars: Record<string, string | undefined> = {
    AWS_SHARED_CREDENTIALS_FILE: join(dir, "credentials"),
    AWS_CONFIG_FILE: join(dir, "config"),
    AWS_ENDPOINT_URL: fake.url,
    AWS_ACCESS_KEY_ID: undefined,
    AWS_SECRET_ACCESS_KEY: undefined,
    AWS_SESSION_TOKEN: undefined,
    AWS_REGION: AMBIENT_REGION,
    AWS_DEFAULT_REGION: AMBIENT_REGION,
    AWS_PROFILE: undefined,
  };
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(vars);
  return () => set(saved);
}
