/**
 * `npm run restore-snapshot`: the control plane restored from a snapshot the person chooses (restoreProcedure.ts).
 * The cluster, its region, the backup bucket and the restore request's name are the stack's outputs. Exit
 * codes in HELP.
 */
import { parseArgs } from "util";
import { SNAPSHOT_KEY_PATTERN, SNAPSHOT_PREFIX } from "../../components/nodes/controlPlaneNames";
import { OutputsSource, readStackOutputs } from "../stackOutputs";
import { inspect, restore, RestoreAws, RestoreError, RestoreTarget, Timing } from "./restoreProcedure";

export const USAGE = `usage: npm run restore-snapshot -- --snapshot ${SNAPSHOT_PREFIX}<UTC time>.db [--yes] [--stack NAME | --outputs FILE] [--profile PROFILE]`;

export const HELP = `${USAGE}

Restores the cluster's control plane from one of its etcd snapshots, ${SNAPSHOT_PREFIX}<UTC time>.db in the
backup bucket (aws s3 ls s3://<backupBucket>/${SNAPSHOT_PREFIX}), instead of the latest one that a control
plane which lost every member restores on its own. Every object written after the snapshot is lost; while
the control plane still runs, its state before the restore is saved first, as the newest snapshot.

It checks the snapshot exists, then terminates every control-plane instance through Auto Scaling, one at a
time (each node drains and its etcd member leaves; the last saves a final snapshot), with the groups'
minimum size at 0 so none is replaced. Once none is left it writes the restore request (the stack output
restoreRequest) and gives the groups their sizes back: the first zone's new node restores the snapshot,
runs the cluster on it and deletes the request, which the command waits for; the others join it, and
workers reconnect on their own. The API is down from the last member's going until that node is ready. A
run that stopped (AWS refused a call, a wait ran out) goes on when run again with the same snapshot; once
it has said the cluster runs on it, running it again restores it again. Follow it with npm run
validate-cluster -- --wait 30m.

Run it as a restore principal (controlPlane.backupRestorePrincipals): only they may read a snapshot
(s3:GetObject, and s3:ListBucket to tell a missing key from a refusal). It also calls
autoscaling:DescribeAutoScalingGroups, UpdateAutoScalingGroup and TerminateInstanceInAutoScalingGroup on the
cluster's control-plane groups, and ssm:GetParameter and PutParameter on the request. Do not run pulumi up
--refresh meanwhile: it would give the groups their sizes back early.

  --snapshot KEY     the snapshot's key in the backup bucket
  --yes              go on; without it, the command says what it would do and changes nothing
  --stack NAME       the stack whose outputs name the cluster (default: the selected stack)
  --outputs FILE     those outputs as pulumi stack output --json wrote them, instead of asking Pulumi
  --profile PROFILE  the AWS profile to call with (default: the AWS SDK's default chain)
  --help             this text

Exit codes: 0 the cluster runs on the snapshot, or without --yes, nothing was changed; 1 AWS refused a call
or a wait ran out (run it again); 2 bad usage, a snapshot that does not exist or cannot be read, or stack
outputs that cannot be read.
`;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

class UsageError extends Error {}

interface Options {
  help: boolean;
  snapshot: string;
  yes: boolean;
  source: OutputsSource;
  profile?: string;
  /** The arguments as given, for the command printed to run again with --yes. */
  argv: readonly string[];
}

function parseCommandLine(argv: readonly string[]): Options {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        snapshot: { type: "string" },
        yes: { type: "boolean", default: false },
        stack: { type: "string" },
        outputs: { type: "string" },
        profile: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const options = { help: values.help, yes: values.yes, profile: values.profile, argv };
  const source = { stack: values.stack, file: values.outputs };
  if (values.help) return { ...options, snapshot: "", source };
  const problems: string[] = [];
  if (values.snapshot === undefined)
    problems.push(`--snapshot is required: a key such as ${SNAPSHOT_PREFIX}20260101T000000Z.db`);
  else if (!new RegExp(SNAPSHOT_KEY_PATTERN).test(values.snapshot))
    problems.push(
      `--snapshot ${values.snapshot}: not a snapshot of the backup timer's, which are named ${SNAPSHOT_PREFIX}<yyyymmddThhmmssZ>.db (such as ${SNAPSHOT_PREFIX}20260101T000000Z.db)`,
    );
  if (values.stack !== undefined && values.outputs !== undefined)
    problems.push("--stack and --outputs both say where the outputs are: give one");
  if (problems.length > 0) throw new UsageError(problems.join("\n"));
  return { ...options, snapshot: values.snapshot!, source };
}

/** The target from the stack's outputs, every missing one named. */
function targetOf(outputs: Record<string, unknown>, key: string): RestoreTarget & { region: string } {
  const names = ["clusterName", "region", "backupBucket", "restoreRequest"] as const;
  const missing = names.filter((n) => typeof outputs[n] !== "string" || !outputs[n]);
  if (missing.length > 0)
    throw new UsageError(
      `the stack outputs have no ${missing.join(", ")}: run pulumi up with this version of the program first`,
    );
  const [clusterName, region, bucket, request] = names.map((n) => outputs[n] as string);
  return { clusterName, region, bucket, request, key };
}

const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

export async function main(
  argv: readonly string[],
  io: Io,
  awsFor: (region: string, profile?: string) => RestoreAws,
  timing?: Timing,
): Promise<number> {
  let options: Options;
  let target: RestoreTarget & { region: string };
  try {
    options = parseCommandLine(argv);
    if (options.help) {
      io.out(HELP);
      return 0;
    }
    let outputs;
    try {
      outputs = readStackOutputs(options.source);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    target = targetOf(outputs, options.snapshot);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`restore-snapshot: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  const aws = awsFor(target.region, options.profile);
  let found;
  try {
    found = await inspect(aws, target);
  } catch (error) {
    io.err(`restore-snapshot: ${(error as Error).message}\n`);
    return error instanceof RestoreError ? 2 : 1;
  }
  const { snapshot, groups, pending } = found;
  const instances = groups.flatMap((g) => Object.keys(g.instances));
  io.out(
    `Restoring ${target.clusterName} from s3://${target.bucket}/${target.key} (${snapshot.bytes} bytes` +
      `${snapshot.modified ? `, written ${snapshot.modified.toISOString()}` : ""}): every object written after it is lost.\n` +
      `Control-plane groups: ${groups.map((g) => g.name).join(", ")}; instances: ${instances.join(", ") || "none"}.\n` +
      (pending === target.key
        ? "Its restore request is written already: the groups get their sizes back, and the restore is waited for.\n"
        : `${pending ? `A restore request for ${pending} is pending: this one replaces it. ` : ""}` +
          "Every instance above is terminated.\n"),
  );
  if (!options.yes) {
    const again = ["npm", "run", "restore-snapshot", "--", ...options.argv, "--yes"].map(shellWord).join(" ");
    io.out(`Nothing was changed. To go on:\n  ${again}\n`);
    return 0;
  }
  try {
    await restore(aws, target, (line) => io.out(`${line}\n`), timing);
  } catch (error) {
    io.err(
      `restore-snapshot: ${(error as Error).message}\nRun the same command again: it goes on from where it stopped.\n`,
    );
    return 1;
  }
  io.out(
    `The control plane runs on ${target.key}; its other nodes and the workers join it.\n` +
      `Follow it with: npm run validate-cluster -- --wait 30m\n`,
  );
  return 0;
}
