/** One row of the check's VALIDATION ERRORS table, kOps's shape: what kind of thing, which one, what is wrong. */
export interface Failure {
  kind: string;
  name: string;
  message: string;
}
