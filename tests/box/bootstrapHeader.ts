/** What a box node's installer put in place: its bootstrap script, and the values of that script's header. */
import { readFileSync } from "fs";
import { join } from "path";
import type { Node } from "./node";
import { BOOTSTRAP_SCRIPT } from "../../components/nodes/systemdUnits";

/** The bootstrap script the node's installer put in place. */
export const bootstrapScriptOf = (node: Node): string =>
  readFileSync(join(node.root, BOOTSTRAP_SCRIPT.slice(1)), "utf8");

/** A value of a node's bootstrap script header (`NAME='value'`). */
export const headerOf = (node: Node, name: string): string | undefined =>
  new RegExp(`^\\s*${name}='([^']*)'$`, "m").exec(bootstrapScriptOf(node))?.[1];
