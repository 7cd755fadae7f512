/**
 * What a failed box scenario prints, since CI keeps nothing but the run's output: for every node the box
 * booted (those gone too: their directories stay until the box stops), the last lines of the bootstrap's and
 * the control plane's own units, from the node's journal; the AWS emulator's last failed answers; then the
 * cluster's view, while an API answers: where its pods are, its disruption budgets, and what the termination
 * handler did.
 */
import { existsSync, readdirSync, readFileSync } from "fs";
import { join } from "path";
import { spawnSync } from "child_process";
import { BOOTSTRAP_SERVICE } from "../../components/nodes/systemdUnits";
import { NODE_TERMINATION_HANDLER } from "../../components/nodes/nodeFacts";

/**
 * The units whose journal tells how a node joined, reconciled etcd and left, the last printed last: CI shows
 * the end of a run's output, and a node's leave (what held its drain) is what a failed replacement turns on.
 */
const UNITS = [BOOTSTRAP_SERVICE, "etcd-members.service", "etcd-leave.service"];
const LINES = 30;

/** The kubectl views the report prints: ARGS each, as the cluster's admin. */
const CLUSTER_VIEWS = [
  ["get", "nodes", "-o", "wide"],
  ["get", "pods", "--all-namespaces", "-o", "wide"],
  ["get", "poddisruptionbudgets", "--all-namespaces"],
  [
    "-n",
    "kube-system",
    "logs",
    "-l",
    `app.kubernetes.io/name=${NODE_TERMINATION_HANDLER}`,
    // Its lines are long JSON: the last few of each replica.
    "--tail",
    "10",
    "--prefix",
  ],
];

/** A unit's journal on a node of the box, its last lines; kept once the node has stopped. */
export function unitJournal(boxDir: string, instanceId: string, unit: string): string {
  const journal = join(boxDir, "nodes", instanceId, "upper", "var", "log", "journal");
  if (!existsSync(journal)) return "";
  const r = spawnSync(
    "journalctl",
    ["-D", journal, "-u", unit, "-n", String(LINES), "-o", "short-precise", "--no-pager"],
    { encoding: "utf8" },
  );
  return `----- ${instanceId}: ${unit}\n${r.stdout ?? ""}${r.stderr ?? r.error?.message ?? ""}\n`;
}

function journals(boxDir: string, units: string[]): string[] {
  const nodes = join(boxDir, "nodes");
  if (!existsSync(nodes)) return [];
  return readdirSync(nodes).flatMap((id) => units.map((unit) => unitJournal(boxDir, id, unit)).filter(Boolean));
}

/** The end of the emulator's log: the tracebacks of answers that failed (tests/box/aws/emulator.py). */
function emulatorLog(boxDir: string): string[] {
  const file = join(boxDir, "emulator.log");
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .slice(-LINES * 2);
  return [`----- the AWS emulator's log, last lines\n${lines.join("\n")}\n`];
}

/** `kubectl`: the box's, as the cluster's admin; a view it cannot give prints its error instead. */
export async function failureReport(boxDir: string, kubectl: (args: string[]) => Promise<string>): Promise<string> {
  const views = await Promise.all(
    CLUSTER_VIEWS.map(async (args) => {
      const out = await kubectl(args).catch((e: Error) => e.message);
      return `----- kubectl ${args.join(" ")}\n${out}\n`;
    }),
  );
  const sections = [
    ...journals(boxDir, UNITS.slice(0, -1)),
    ...emulatorLog(boxDir),
    ...views,
    ...journals(boxDir, UNITS.slice(-1)),
  ];
  return `\n      the box's journals and the cluster's view, for the failure above:\n${sections.join("")}\n`;
}
