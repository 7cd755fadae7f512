/**
 * What a failed box scenario prints, since CI keeps nothing but the run's output: for every node the box
 * booted (those gone too: their directories stay until the box stops), the last lines of the bootstrap's and
 * the control plane's own units, from the node's journal.
 */
import { existsSync, readdirSync } from "fs";
import { join } from "path";
import { spawnSync } from "child_process";
import { BOOTSTRAP_SERVICE } from "../../components/nodes/systemdUnits";

/** The units whose journal tells how a node joined, left and reconciled etcd. */
const UNITS = [BOOTSTRAP_SERVICE, "etcd-leave.service", "etcd-members.service"];
const LINES = 30;

export function failureReport(boxDir: string): string {
  const nodes = join(boxDir, "nodes");
  if (!existsSync(nodes)) return "";
  const sections = readdirSync(nodes).flatMap((id) => {
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
  return sections.length ? `\n      the box's journals, for the failure above:\n${sections.join("")}\n` : "";
}
