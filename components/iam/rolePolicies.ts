/**
 * The instance roles' policy documents, composed from the statement sources (one per feature). Pure and
 * deterministic; nothing is granted that no feature of this cluster calls.
 */
import type { ClusterSpec } from "../../config/types";
import { policyDocument, PolicyDocument } from "./policyDocument";
import { STATEMENT_SOURCES } from "./sources/sourceList";
import type { AwsCoordinates, RoleKind } from "./statementSource";

export type { AwsCoordinates, RoleKind } from "./statementSource";

export function rolePolicy(role: RoleKind, spec: ClusterSpec, at: AwsCoordinates): PolicyDocument {
  return policyDocument(STATEMENT_SOURCES.flatMap((source) => source.statements(role, spec, at)));
}
