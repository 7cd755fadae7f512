/**
 * `npm run plan`: the program's offline dry run. Exit codes: 0 planned, 1 the config is invalid (every
 * field error on stderr) or the diff holds a change that must not be applied, 2 bad usage.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { basename, dirname, join, resolve } from "path";
import { formatReport } from "../spec/validation/report";
import { planFiles } from "./artifacts";
import { diffPlans } from "./diff";
import { Format, formatDiff, formatPlan, hasErrors } from "./format";
import { PROJECT_DIR } from "./examples";
import { Plan, PlannedResource, runPlan } from "./run";
import { loadStackConfig, setPath, StackConfig, UsageError } from "./stackConfig";

export const USAGE =
  "usage: npm run plan -- [--stack NAME | --config-file PATH] [--set PATH=VALUE]... [--out DIR] " +
  "[--diff | --against DIR] [--format text|markdown]";

export const HELP = `${USAGE}

The program's plan, offline: the real program under the Pulumi SDK's mock runtime, no cloud, no credentials.

  --stack NAME         plan Pulumi.NAME.yaml (default dev), with Pulumi.yaml's defaults merged as the CLI does
  --config-file PATH   plan any stack file, e.g. examples/Pulumi.ha.yaml (the stack is named after the file)
  --set PATH=VALUE     apply \`pulumi config set --path PATH VALUE\` first (repeatable; true/false and integers
                       become booleans and numbers, as the CLI does; a list takes an index: nodeGroups[0].name)
  --out DIR            also write resources.json, outputs.json, Kubernetes objects, IAM documents, user data
  --diff               compare the plan with the --set edits against the plan without them
  --against DIR        compare the plan with an earlier --out of the same stack (CI: the base branch's plan)
  --format FORMAT      text (default) or markdown, for a pull-request comment
  --help               this text

A diff starts with a summary: replacements, which node groups roll and why, zones added or removed, the
control plane moving, data at risk, IAM permissions widened or narrowed, Kubernetes version skew (an error).

Exit codes: 0 planned; 1 the config is invalid (every field error on stderr) or the diff holds an error;
2 bad usage.
`;

export interface Options {
  help?: boolean;
  stack: string;
  configFile?: string;
  sets: string[];
  out?: string;
  diff: boolean;
  /** An earlier `--out` directory to diff this plan against (a base branch's plan, in CI). */
  against?: string;
  format: Format;
}

export function parseArgs(argv: readonly string[]): Options {
  const options: Options = { stack: "dev", sets: [], diff: false, format: "text" };
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
        options.stack = value();
        break;
      case "--config-file":
        options.configFile = value();
        break;
      case "--set": {
        const edit = value();
        if (!/^[^=]+=/.test(edit)) throw new UsageError(`--set takes PATH=VALUE, got ${JSON.stringify(edit)}`);
        options.sets.push(edit);
        break;
      }
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
  if (options.diff && options.sets.length === 0)
    throw new UsageError("--diff compares against --set edits; give at least one");
  if (options.diff && options.against) throw new UsageError("--diff and --against are alternatives");
  return options;
}

/** The stack file and the stack name it implies. */
function stackSource(options: Options): { file: string; stack: string } {
  if (options.configFile) {
    const stack = basename(options.configFile)
      .replace(/^Pulumi\./, "")
      .replace(/\.ya?ml$/, "");
    return { file: resolve(options.configFile), stack };
  }
  return { file: join(PROJECT_DIR, `Pulumi.${options.stack}.yaml`), stack: options.stack };
}

function applyEdits(config: StackConfig, sets: readonly string[]): StackConfig {
  const edited = structuredClone(config);
  for (const edit of sets) {
    const at = edit.indexOf("=");
    setPath(edited, edit.slice(0, at), edit.slice(at + 1));
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
  const resources = JSON.parse(readFileSync(file, "utf8")) as PlannedResource[];
  const baseline = stackOfUrn(resources[0]?.urn ?? "");
  if (baseline !== undefined && baseline !== `${stack}`) {
    throw new UsageError(
      `--against ${dir}: that plan is of stack ${JSON.stringify(baseline)}, this one of ${JSON.stringify(stack)}; ` +
        "plan the base with the same --stack or --config-file name",
    );
  }
  return { resources, outputs: {}, warnings: [] };
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

export async function main(argv: readonly string[], io: Io): Promise<number> {
  let options: Options;
  let config: StackConfig;
  let edited: StackConfig;
  let stack: string;
  let baseline: Plan | undefined;
  try {
    options = parseArgs(argv);
    if (options.help) {
      io.out(HELP);
      return 0;
    }
    const source = stackSource(options);
    stack = source.stack;
    config = loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), source.file);
    edited = applyEdits(config, options.sets);
    if (options.out) checkOutDir(resolve(options.out));
    if (options.against) baseline = readPlan(resolve(options.against), stack);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`plan: ${err.message}\n${USAGE}\n`);
    return 2;
  }

  const plan = await runPlan(edited, stack);
  for (const warning of plan.warnings) io.err(`warning: ${warning}\n`);
  if (plan.errors) {
    io.err(`${formatReport(plan.errors)}\n`);
    return 1;
  }
  let code = 0;
  if (baseline) {
    const diff = diffPlans(baseline, plan);
    io.out(formatDiff(diff, `Changes against ${options.against}`, options.format));
    if (hasErrors(diff)) code = 1;
  } else if (options.diff) {
    const base = await runPlan(config, stack);
    if (base.errors) {
      io.err(`Before the --set edits: ${formatReport(base.errors)}\n`);
      return 1;
    }
    const diff = diffPlans(base, plan);
    const title = `Changes from ${options.sets.map((e) => `--set ${e}`).join(" ")}`;
    io.out(formatDiff(diff, title, options.format));
    if (hasErrors(diff)) code = 1;
  } else {
    io.out(formatPlan(plan, options.format));
  }
  if (options.out) writeOut(resolve(options.out), planFiles(plan));
  return code;
}
