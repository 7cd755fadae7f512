// Entry point for the Pulumi CLI (Pulumi.yaml's `main`): the exported function runs the program and returns
// the stack outputs. The CLI runs it through ts-node with swc (tsconfig.json's "ts-node"), so an edit to any
// source is what the next preview runs; `npm test` type-checks.
import "./components/compileCache";
import { program } from "./components/cluster";

export = program;
