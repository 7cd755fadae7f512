/**
 * What a failed box scenario prints, since CI keeps nothing but the run's output: for every node the box
 * booted (those gone too: their directories stay until the box stops), the last lines of the bootstrap's and
 * the control plane's own units, from the node's journal; then the cluster's view, while an API answers:
 * where its pods are, its disruption budgets, and what the termination handler did.
 */
import { existsSync, readdirSync } from "fs";
import { join } from "path";
import { spawnSync } from "child_process";
import { BOOTSTRAP_SERVICE } from "../../components/nodes/systemdUnits";
import { NODE_TERMINATION_HANDLER } from "../../components/nodes/nodeFacts";

/** The units whose journal tells how a node joined, left and reconciled etcd. */
const UNITS = [BOOTSTRAP_SERVICE, "etcd-leave.service", "etcd-members.service"];
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
    "--tail",
    String(LINES),
    "--prefix",
  ],
];

function journals(boxDir: string): string[] {
  const nodes = join(boxDir, "nodes");
  if (!existsSync(nodes)) return [];
  return readdirSync(nodes).flatMap((id) => {
    const journal = join(nodes, id, "upper", "var", "log", "journal");
    if (!existsSync(journal)) return [];
    return UNITS.map((unit) => {
      const r = spawnSync(
        "journalctl",
        ["-D", journal, "-u", unit, "-n", String(LINES), "-o", "short-precise", "--no-pager"],
        { encoding: "utf8" },
      );
      return `----- ${id}: ${unit}\n${r.stdout ?? ""}${r.stderr ?? r.error?.message ?? ""}\n`;
    });
  });
}

/** `kubectl`: the box's, as the cluster's admin; a view it cannot give prints its error instead. */
export async function failureReport(boxDir: string, kubectl: (args: string[]) => Promise<string>): Promise<string> {
  const views = await Promise.all(
    CLUSTER_VIEWS.map(async (args) => {
      const out = await kubectl(args).catch((e: Error) => e.message);
      return `----- kubectl ${args.join(" ")}\n${out}\n`;
    }),
  );
  const sections = [...journals(boxDir), ...views];
  return `\n      the box's journals and the cluster's view, for the failure above:\n${sections.join("")}\n`;
}
