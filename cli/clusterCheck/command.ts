/**
 * `npm run validate-cluster`: kOps's `validate cluster` and `get instancegroups` for a cluster of this
 * program. Reads the stack config (what the cluster should have), the cluster through a kubeconfig and the
 * Auto Scaling groups through the stack's AWS config, and prints the verdict. Exit codes (HELP lists them).
 */
import { KubeConfig } from "@kubernetes/client-node";
import { join } from "path";
import { parseArgs } from "util";
import { readRawConfig } from "../../config/read";
import { formatReport } from "../../config/validation/report";
import { validateConfig } from "../../components/clusterConfigValidation";
import { waitUntil } from "../../components/poll";
import { durationSeconds } from "../../config/validation/stackAwsConfig";
import { TIMEOUTS } from "../../components/timeouts";
import { PROJECT_DIR } from "../plan/examples";
import { loadStackConfig, toRuntimeConfig, UsageError } from "../plan/stackConfig";
import type { AwsGroups } from "./clusterState";
import { Expectations, expectations } from "./expectations";
import { instanceGroupRows } from "./instanceGroupListing";
import { readAutoScaling } from "./readAutoScaling";
import { readCluster } from "./readCluster";
import { errorCount, instanceGroupsTable, verdictText } from "./tables";
import { selectedStack } from "./selectedStack";
import { judge, Verdict } from "./verdict";
import { fromCaller } from "../callerPath";

export const USAGE = `usage: npm run validate-cluster -- [--kubeconfig FILE] [--stack NAME | --config-file PATH] [--wait DURATION]
       npm run validate-cluster -- instancegroups [--stack NAME | --config-file PATH]`;

export const HELP = `${USAGE}

Checks a running cluster against its stack config, as kOps's validate cluster does: every instance group
has at least its minimum size of Ready nodes, each of its instances joined as a node, each node initialised
by the cloud controller manager; the API server's readiness checks pass (etcd's among them) and every
control-plane node runs etcd, the API server, the controller manager and the scheduler, ready; Cilium's
agents and operator, the cloud controller manager and the EBS CSI driver are there and ready, and so is
every other pod of a system-critical priority class; in ENI mode every node has a CiliumNode with a free
pod address. Failures are listed as VALIDATION ERRORS (KIND, NAME, MESSAGE).

Nodes are matched to their groups through AWS (each group's Auto Scaling instances), called with the
stack's aws:region, aws:profile and aws:assumeRoles. Without AWS credentials the check still runs and says
why the groups were not listed, and counts nodes by role against the groups' minimum sizes added up.

  --kubeconfig FILE    the cluster's kubeconfig (default: kubeconfig, what npm run kubeconfig writes)
  --stack NAME         the stack whose config the cluster is checked against: Pulumi.NAME.yaml (default: the
                       stack pulumi stack select chose, whose outputs npm run kubeconfig reads)
  --config-file PATH   any stack file instead
  --wait DURATION      check again every ${TIMEOUTS.validate.pollSeconds}s until the cluster is healthy, at most DURATION (10m, 1h30m)
  --help               this text

instancegroups lists the instance groups as Auto Scaling runs them (kOps's get instancegroups): role,
instance type, minimum and maximum size, zones, the launch template version each pins, instances in service
and instances on an older version; it needs no kubeconfig.

Exit codes: 0 the cluster is healthy (instancegroups: listed); 1 it is not (with --wait, not by the
deadline; instancegroups: AWS did not list them); 2 bad usage, a stack file or kubeconfig that cannot be
read, or a stack config that is invalid.
`;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

interface Options {
  help: boolean;
  instanceGroups: boolean;
  kubeconfig: string;
  stackFile: string;
  stackLabel: string;
  waitSeconds?: number;
}

function parseCommandLine(argv: readonly string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        kubeconfig: { type: "string", default: "kubeconfig" },
        stack: { type: "string" },
        "config-file": { type: "string" },
        wait: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1 || (positionals.length === 1 && positionals[0] !== "instancegroups"))
    throw new UsageError(`unknown command ${positionals.join(" ")}: the only command is instancegroups`);
  const instanceGroups = positionals[0] === "instancegroups";
  if (values.stack !== undefined && values["config-file"] !== undefined)
    throw new UsageError("--stack and --config-file name the stack twice: give one");
  let waitSeconds: number | undefined;
  if (values.wait !== undefined) {
    if (instanceGroups) throw new UsageError("--wait is for the cluster check, not instancegroups");
    waitSeconds = durationSeconds(values.wait);
    if (!waitSeconds) throw new UsageError(`--wait ${values.wait}: a duration such as 10m or 1h30m`);
  }
  const common = { help: values.help, instanceGroups, kubeconfig: values.kubeconfig, waitSeconds };
  const configFile = values["config-file"];
  if (configFile !== undefined) return { ...common, stackFile: fromCaller(configFile), stackLabel: configFile };
  const stack = values.stack ?? (values.help ? "" : selectedStackName());
  return { ...common, stackFile: join(PROJECT_DIR, `Pulumi.${stack}.yaml`), stackLabel: `Pulumi.${stack}.yaml` };
}

/** The stack `pulumi stack select` chose, for a command that names none. */
function selectedStackName(): string {
  const selected = selectedStack();
  if ("reason" in selected)
    throw new UsageError(
      `no stack named, and the selected one is unknown (${selected.reason}): give --stack NAME (Pulumi.NAME.yaml) or --config-file PATH`,
    );
  return selected.stack;
}

/** The stack's expectations and its flat config (for AWS), or a usage error. */
function loadStack(options: Options): { expected: Expectations; config: Record<string, string> } {
  const config = toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), options.stackFile));
  const { raw, region } = readRawConfig(config);
  const { spec, errors } = validateConfig(raw, region);
  if (errors.length > 0) throw new UsageError(`${options.stackLabel}: ${formatReport(errors)}`);
  return { expected: expectations(spec), config };
}

function loadKubeconfig(file: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (error) {
    throw new UsageError(
      `cannot read the kubeconfig ${file} (${(error as Error).message.split("\n")[0]}): ` +
        "write one with npm run kubeconfig, or give --kubeconfig FILE",
    );
  }
  if (!kc.getCurrentCluster()) throw new UsageError(`the kubeconfig ${file} has no current context with a cluster`);
  return kc;
}

const groupsSection = (expected: Expectations, aws: AwsGroups, unlisted = "") =>
  `INSTANCE GROUPS\n${
    aws.listed
      ? instanceGroupsTable(instanceGroupRows(expected.groups, aws.groups))
      : `not listed: ${aws.reason}${unlisted}`
  }`;

async function validate(options: Options, expected: Expectations, config: Record<string, string>, io: Io) {
  const kc = loadKubeconfig(fromCaller(options.kubeconfig));
  const server = kc.getCurrentCluster()!.server;
  io.out(`Validating cluster ${expected.clusterName} (${options.stackLabel}, ${server})\n\n`);
  let last: { verdict: Verdict; aws: AwsGroups } | undefined;
  const check = async () => {
    const [cluster, aws] = await Promise.all([
      readCluster(kc, expected),
      readAutoScaling(expected.clusterName, config),
    ]);
    last = { verdict: judge(expected, cluster, aws), aws };
    return last;
  };
  if (options.waitSeconds === undefined) await check();
  else {
    const poll = TIMEOUTS.validate.pollSeconds;
    await waitUntil(
      `the cluster ${expected.clusterName}`,
      async () => {
        const { verdict } = await check();
        if (verdict.healthy) return "done";
        const first = verdict.failures[0];
        io.err(
          `not healthy yet (${errorCount(verdict.failures.length)}, first: ${first.kind} ${first.name}: ${first.message}); checking again in ${poll}s\n`,
        );
        return "wait";
      },
      {
        timeoutMs: options.waitSeconds * 1000,
        intervalMs: poll * 1000,
        timedOut: () => `not healthy after ${options.waitSeconds}s`,
      },
    ).catch((error: Error) => io.err(`${error.message}\n`));
  }
  const { verdict, aws } = last!;
  const byRole = "\nnodes are counted by role, not matched to their groups";
  io.out(`${groupsSection(expected, aws, byRole)}\n\n${verdictText(expected.clusterName, verdict)}`);
  return verdict.healthy ? 0 : 1;
}

export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    const options = parseCommandLine(argv);
    if (options.help) {
      io.out(HELP);
      return 0;
    }
    const { expected, config } = loadStack(options);
    if (!options.instanceGroups) return await validate(options, expected, config, io);
    const aws = await readAutoScaling(expected.clusterName, config);
    io.out(`${groupsSection(expected, aws)}\n`);
    return aws.listed ? 0 : 1;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`validate-cluster: ${error.message}\n${USAGE}\n`);
    return 2;
  }
}
