// Entry point for the Pulumi CLI: the exported function runs the program and returns the stack outputs.
// Pulumi.yaml runs its compiled form, bin/index.js (`npm run build`), which first checks it is up to date.
import "./buildGuard";
import { program } from "./program";

export = program;
