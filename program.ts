/**
 * The program: read the spec (validated before anything is declared), build the components, return the
 * stack outputs. `index.ts` exports this for the Pulumi CLI; `npm run plan` runs it under mocks.
 */
import { loadSpec } from "./spec/load";

export async function program(): Promise<Record<string, unknown>> {
  const spec = loadSpec();
  return { clusterName: spec.clusterName };
}
