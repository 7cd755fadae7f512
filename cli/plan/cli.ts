/**
 * `npm run plan`: the program's offline dry run. Exit codes (HELP lists them): 0 planned, 1 the config is
 * invalid (every field error on stderr) or the diff holds a change that must not be applied, 2 bad usage,
 * 3 the plan failed (cli/plan.ts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { basename, dirname, join } from "path";
import { formatReport } from "../../config/validation/report";
import { planFiles, resourcesFromFiles } from "./artifacts";
import { diffPlans } from "./diff";
import { Format, formatDiff, formatPlan, hasErrors } from "./format";
import { PROJECT_DIR } from "./examples";
import { Plan, PlannedResource, runPlan } from "./run";
import { secretPaths, secretsMessage } from "./secrets";
import {
  projectDefaults,
  overDefaults,
  removePath,
  setJsonPath,
  setPath,
  stackFileConfig,
  StackConfig,
  UsageError,
} from "./stackConfig";
import { fromCaller } from "../callerPath";

export const USAGE =
  "usage: npm run plan -- [--stack NAME | --config-file PATH]... " +
  "[--set PATH=VALUE | --set-json PATH=JSON | --rm PATH]... [--out DIR] [--diff | --against DIR] " +
  "[--allow-cluster-rename] [--format text|markdown]";

export const HELP = `${USAGE}

The program's plan, offline: the real program under the Pulumi SDK's mock runtime, no cloud, no credentials.

  --stack NAME         plan Pulumi.NAME.yaml (default dev), with Pulumi.yaml's defaults merged as the CLI does
  --config-file PATH   plan any stack file, e.g. examples/Pulumi.ha.yaml (the stack is named after the file)
  --set PATH=VALUE     apply \`pulumi config set --path PATH VALUE\` first (repeatable; true/false and integers
                       become booleans and numbers, as the CLI does; a list takes an index: nodeGroups[0].name)
  --set-json PATH=JSON set PATH to a JSON value, typed as written: '"1234"' a string, 1234 a number, true a
                       boolean, ["a","b"] a list, {"k":"v"} an object
  --rm PATH            apply \`pulumi config rm --path PATH\` (a list item is removed; a top-level key falls back
                       to its Pulumi.yaml default); the edits apply in the order given
  --out DIR            also write resources.json, outputs.json, Kubernetes objects, IAM documents, user data
  --diff               compare the plan with the edits against the plan without them
  --against DIR        compare the plan with an earlier --out of the same stack (CI: the base branch's plan)
  --allow-cluster-rename  plan a new clusterName as the new cluster it is (a warning), not refuse it (an error)
  --format FORMAT      text (default) or markdown, for a pull-request comment
  --help               this text

Several stacks (--stack and --config-file repeated, in any mix) plan in one process, in the order given, each
as a run of its own would: its output follows a heading, ==> FILE <== (in markdown, ## FILE), and
--out DIR and --against DIR hold one directory per stack, named after its file with each / as _ (e.g.
DIR/examples_Pulumi.ha.yaml). A stack with no plan under --against is planned in full. The exit code is 1
when any stack's is, and a last line on stderr names those stacks.

With --diff or --against, the plan compared with stands for what the stack last applied: the program reads
its outputs back, as it reads its own stack's in a preview, and refuses (exit 1) a Kubernetes downgrade, a
skipped minor or an etcd upgrade etcd refuses, as pulumi preview would.

A diff starts with a summary: errors for what the cluster's engines refuse on a live cluster (a Kubernetes or
Cilium minor version skipped, a downgrade, a cluster rename without --allow-cluster-rename), warnings for a
Kubernetes upgrade (its order: the control plane, then the node groups), a change of Cilium's IPAM mode,
zones added or removed, the control plane moving (by its member count), API
endpoints that change, node groups that roll or whose nodes are terminated (and whether they are drained),
data at risk, Kubernetes objects deleted, IAM permissions widened or narrowed, and replacements. The details
list every input of a resource created or deleted (secrets as [secret]), the changed inputs of the others
(user data as a unified diff), and the stack outputs that change.

Exit codes: 0 planned; 1 the config is invalid (every field error on stderr) or the diff holds an error;
2 bad usage, a stack file that is not YAML, or Pulumi secrets (secure:) the offline plan cannot decrypt
without a --set placeholder; 3 the plan itself failed (a bug, or a build that refuses to run).
`;

/** A stack to plan, as the command line named it. */
export interface StackSource {
  file: string;
  /** The stack's name: NAME of --stack, or the file's name between Pulumi. and .yaml. */
  stack: string;
  /** `Pulumi.NAME.yaml` for --stack, the path as given for --config-file: the heading of its output. */
  label: string;
}

/** A config edit: `pulumi config set --path` (as the CLI types it, or as JSON), or `pulumi config rm --path`. */
export interface Edit {
  flag: "--set" | "--set-json" | "--rm";
  /** `PATH=VALUE` for the sets, `PATH` for --rm. */
  arg: string;
}

export interface Options {
  help?: boolean;
  /** In the order given; the dev stack when none is. */
  stacks: StackSource[];
  /** In the order given. */
  edits: Edit[];
  allowClusterRename: boolean;
  out?: string;
  diff: boolean;
  /** An earlier `--out` directory to diff this plan against (a base branch's plan, in CI). */
  against?: string;
  format: Format;
}

function fromStackName(stack: string): StackSource {
  return { file: join(PROJECT_DIR, `Pulumi.${stack}.yaml`), stack, label: `Pulumi.${stack}.yaml` };
}

function fromConfigFile(path: string): StackSource {
  const stack = basename(path)
    .replace(/^Pulumi\./, "")
    .replace(/\.ya?ml$/, "");
  return { file: fromCaller(path), stack, label: path };
}

/** With several stacks, the directory of a stack's plan under --out and --against. */
export const stackKey = (source: StackSource): string => source.label.replace(/\//g, "_");

export function parseArgs(argv: readonly string[]): Options {
  const options: Options = { stacks: [], edits: [], allowClusterRename: false, diff: false, format: "text" };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--help":
      case "-h":
        options.help = true;
        break;
      case "--stack":
        options.stacks.push(fromStackName(value()));
        break;
      case "--config-file":
        options.stacks.push(fromConfigFile(value()));
        break;
      case "--set":
      case "--set-json": {
        const edit = value();
        const form = flag === "--set" ? "PATH=VALUE" : "PATH=JSON";
        if (!/^[^=]+=/.test(edit)) throw new UsageError(`${flag} takes ${form}, got ${JSON.stringify(edit)}`);
        options.edits.push({ flag, arg: edit });
        break;
      }
      case "--rm":
        options.edits.push({ flag, arg: value() });
        break;
      case "--allow-cluster-rename":
        options.allowClusterRename = true;
        break;
      case "--out":
        options.out = value();
        break;
      case "--diff":
        options.diff = true;
        break;
      case "--against":
        options.against = value();
        break;
      case "--format": {
        const format = value();
        if (format !== "text" && format !== "markdown")
          throw new UsageError(`--format is text or markdown, got ${format}`);
        options.format = format;
        break;
      }
      default:
        throw new UsageError(`unknown argument ${flag}`);
    }
  }
  if (options.diff && options.edits.length === 0)
    throw new UsageError("--diff compares against config edits (--set, --set-json, --rm); give at least one");
  if (options.diff && options.against) throw new UsageError("--diff and --against are alternatives");
  if (options.stacks.length === 0) options.stacks.push(fromStackName("dev"));
  const keys = options.stacks.map(stackKey);
  const twice = keys.find((key, i) => keys.indexOf(key) !== i);
  if (twice !== undefined) throw new UsageError(`${twice} is given twice`);
  return options;
}

/** The edits applied to a stack file's own values, as the CLI applies them (stackConfig.ts). */
function applyEdits(own: StackConfig, edits: readonly Edit[]): StackConfig {
  const edited = structuredClone(own);
  for (const { flag, arg } of edits) {
    const at = arg.indexOf("=");
    if (flag === "--rm") removePath(edited, arg);
    else if (flag === "--set-json") setJsonPath(edited, arg.slice(0, at), arg.slice(at + 1));
    else setPath(edited, arg.slice(0, at), arg.slice(at + 1));
  }
  return edited;
}

/** The stack a plan's URNs name (`urn:pulumi:<stack>::<project>::...`). */
const stackOfUrn = (urn: string): string | undefined => /^urn:pulumi:([^:]+)::/.exec(urn)?.[1];

/**
 * A plan written by `--out`, for `--against`. The directory must hold one, of the same stack: against a
 * missing directory or another stack's plan every resource would show as created or replaced.
 */
export function readPlan(dir: string, stack: string): Plan {
  const file = join(dir, "resources.json");
  if (!existsSync(file)) {
    throw new UsageError(
      `--against ${dir}: no resources.json there; give a directory written by --out ` +
        "(for a stack new on this branch, plan it without --against)",
    );
  }
  let resources: PlannedResource[];
  let outputs: Record<string, unknown>;
  try {
    resources = resourcesFromFiles((name) => readFileSync(join(dir, name), "utf8"));
    outputs = JSON.parse(readFileSync(join(dir, "outputs.json"), "utf8")) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`--against ${dir}: ${(err as Error).message}; write it again with --out`);
  }
  const baseline = stackOfUrn(resources[0]?.urn ?? "");
  if (baseline !== undefined && baseline !== `${stack}`) {
    throw new UsageError(
      `--against ${dir}: that plan is of stack ${JSON.stringify(baseline)}, this one of ${JSON.stringify(stack)}; ` +
        "plan the base with the same --stack or --config-file name",
    );
  }
  return { resources, outputs, warnings: [] };
}

/**
 * `--out` replaces the directory's contents, so it must be new, empty, or an earlier `--out` (it holds a
 * resources.json): a mistyped `--out .` must not wipe the project.
 */
export function checkOutDir(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, "resources.json"))) {
    throw new UsageError(`--out ${dir}: refusing to replace a directory that is not an earlier --out`);
  }
}

export function writeOut(dir: string, files: Map<string, string>): void {
  checkOutDir(dir);
  rmSync(dir, { recursive: true, force: true });
  for (const [name, text] of files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** One stack's run, its inputs read and checked before any stack plans. */
interface StackRun {
  source: StackSource;
  config: StackConfig;
  edited: StackConfig;
  /** Its --out directory. */
  out?: string;
  /** Its --against directory, and the plan there (none: a stack new since that plan, planned in full). */
  against?: string;
  baseline?: Plan;
}

/**
 * With several stacks, --out must be new, empty, or an earlier --out of several stacks (a directory of
 * earlier --out directories): nothing else in it is replaced, and a mistyped `--out .` must not fill the
 * project with plans.
 */
function checkOutRoot(dir: string): void {
  if (!existsSync(dir)) return;
  const entries = readdirSync(dir, { withFileTypes: true });
  if (entries.some((e) => !e.isDirectory() || !existsSync(join(dir, e.name, "resources.json")))) {
    throw new UsageError(
      `--out ${dir}: refusing to write into a directory that is not an earlier --out of several stacks`,
    );
  }
}

/** `defaults`: Pulumi.yaml's config defaults (projectDefaults), read once for every stack planned. */
function prepare(source: StackSource, options: Options, several: boolean, defaults: StackConfig): StackRun {
  const own = stackFileConfig(source.file);
  // A `secure:` value the offline plan cannot decrypt may be stood in for by an edit of the same path.
  const secrets = secretPaths(overDefaults(defaults, own));
  const readable = applyEdits(
    own,
    options.edits.filter((edit) => edit.flag !== "--rm" && secrets.includes(edit.arg.slice(0, edit.arg.indexOf("=")))),
  );
  const config = overDefaults(defaults, readable);
  const unread = secretPaths(config);
  if (unread.length > 0) throw new UsageError(secretsMessage(source.label, unread));
  const edited = overDefaults(defaults, applyEdits(readable, options.edits));
  const run: StackRun = { source, config, edited };
  if (options.out) {
    run.out = several ? join(fromCaller(options.out), stackKey(source)) : fromCaller(options.out);
    checkOutDir(run.out);
  }
  if (options.against) {
    run.against = several ? join(fromCaller(options.against), stackKey(source)) : fromCaller(options.against);
    // Alone, a missing plan is a mistake; among several, the stack is new since those plans were made.
    if (!several || existsSync(join(run.against, "resources.json"))) run.baseline = readPlan(run.against, source.stack);
  }
  return run;
}

async function planStack(run: StackRun, options: Options, io: Io): Promise<number> {
  const { source } = run;
  // The plan compared with stands for what the stack last applied: the program reads its outputs back, as
  // it reads the stack's own in a preview (components/appliedStateOutputs.ts).
  let base = run.baseline;
  if (!base && options.diff) {
    base = await runPlan(run.config, source.stack);
    if (base.errors) {
      io.err(`Before the --set edits: ${formatReport(base.errors)}\n`);
      return 1;
    }
  }
  const plan = await runPlan(run.edited, source.stack, true, base?.outputs);
  for (const warning of plan.warnings) io.err(`warning: ${warning}\n`);
  if (plan.errors) {
    io.err(`${formatReport(plan.errors)}\n`);
    return 1;
  }
  let code = 0;
  const risk = { allowClusterRename: options.allowClusterRename };
  if (run.baseline) {
    const diff = diffPlans(run.baseline, plan);
    io.out(formatDiff(diff, `Changes against ${run.against}`, options.format, risk));
    if (hasErrors(diff, risk)) code = 1;
  } else if (base) {
    const diff = diffPlans(base, plan);
    const title = `Changes from ${options.edits.map((e) => `${e.flag} ${e.arg}`).join(" ")}`;
    io.out(formatDiff(diff, title, options.format, risk));
    if (hasErrors(diff, risk)) code = 1;
  } else {
    if (run.against) io.out(`No plan of this stack in ${run.against} to compare with: its plan in full.\n\n`);
    io.out(formatPlan(plan, options.format));
  }
  if (run.out) writeOut(run.out, planFiles(plan));
  return code;
}

const heading = (label: string, format: Format): string =>
  format === "markdown" ? `## ${label}\n\n` : `==> ${label} <==\n`;

export async function main(argv: readonly string[], io: Io): Promise<number> {
  let options: Options;
  let runs: StackRun[];
  try {
    options = parseArgs(argv);
    if (options.help) {
      io.out(HELP);
      return 0;
    }
    const several = options.stacks.length > 1;
    if (several && options.out) checkOutRoot(fromCaller(options.out));
    if (several && options.against && !existsSync(fromCaller(options.against)))
      throw new UsageError(`--against ${options.against}: no such directory`);
    const defaults = projectDefaults(join(PROJECT_DIR, "Pulumi.yaml"));
    runs = options.stacks.map((source) => prepare(source, options, several, defaults));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`plan: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (runs.length === 1) return planStack(runs[0], options, io);
  // Each stack as a process of its own would plan it: runPlan resets the SDK's mocks, settings and config.
  const failed: string[] = [];
  for (const run of runs) {
    io.out(heading(run.source.label, options.format));
    if ((await planStack(run, options, io)) !== 0) failed.push(run.source.label);
  }
  if (failed.length === 0) return 0;
  io.err(`plan: ${failed.length} of ${runs.length} stacks did not plan cleanly: ${failed.join(", ")}\n`);
  return 1;
}
