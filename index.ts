// Entry point for the Pulumi CLI: the exported function runs the program and returns the stack outputs.
// The CLI runs its compiled form, bin/index.js (package.json's main; `npm run build`), which first applies
// the runtime settings (runtimeSettings.ts), then checks that it was built from the sources as they are.
import "./runtimeSettings";
import "./buildGuard";
import { program } from "./program";

export = program;
