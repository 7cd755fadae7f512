/**
 * Imported first by index.ts: the compiled program (bin/) refuses to load when its sources have changed
 * since it was built, before any of it runs. Run from the TypeScript sources, as the tests do, there is
 * nothing to compare.
 */
import { RunError } from "@pulumi/pulumi";
import { dirname } from "path";
import { staleBuild } from "./buildStamp";

if (__filename.endsWith(".js")) {
  const stale = staleBuild(dirname(__dirname));
  if (stale) throw new RunError(stale);
}
