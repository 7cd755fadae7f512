// Entry point for the Pulumi CLI: the exported function runs the program and returns the stack outputs.
import { program } from "./program";

export = program;
