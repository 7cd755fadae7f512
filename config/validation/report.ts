/** How validation errors reach the user: one line per error with the command that fixes it. */
import * as pulumi from "@pulumi/pulumi";
import { FieldError, formatFieldError } from "./fieldErrors";
import { fixCommand } from "./fixHints";

/** `path: Type: ... (fix: pulumi config set --path 'path' <value>)` */
export function formatWithFix(e: FieldError): string {
  return `${formatFieldError(e)} (fix: ${fixCommand(e)})`;
}

export function formatReport(errors: readonly FieldError[]): string {
  const count = errors.length === 1 ? "1 error" : `${errors.length} errors`;
  return [`Invalid cluster configuration (${count}):`, ...errors.map((e) => `  ${formatWithFix(e)}`)].join("\n");
}

/** Ends the program with every config problem listed and no stack trace (a RunError). */
export class ConfigValidationError extends pulumi.RunError {
  constructor(readonly errors: readonly FieldError[]) {
    super(formatReport(errors));
    this.name = "ConfigValidationError";
  }
}
