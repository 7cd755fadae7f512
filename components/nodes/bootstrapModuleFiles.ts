/** The bootstrap's modules (bootstrap/*.sh) on disk: the one place that reads them. */
import { readFileSync } from "fs";
import { join } from "path";
import type { BootstrapModule } from "./bootstrapSteps";

export const MODULE_DIR = join(__dirname, "bootstrap");

export const modulePath = (module: BootstrapModule): string => join(MODULE_DIR, `${module}.sh`);

/** The module's text as written, comments and all. */
export const moduleSource = (module: BootstrapModule): string => readFileSync(modulePath(module), "utf8");
