/** How validation errors reach the user: one line per error with the command that fixes it. */
import * as pulumi from "@pulumi/pulumi";
import { FieldError, formatFieldError } from "./fieldErrors";

function fixCommand(e: FieldError): string {
  if (e.field.includes(":")) return `pulumi config set ${e.field} <value>`;
  if (e.type === "Forbidden" && e.detail.startsWith("unknown key")) return `pulumi config rm --path '${e.field}'`;
  return `pulumi config set --path '${e.field}' <value>`;
}

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
