// Compile-time checks (npm test type-checks before it runs): the spec type derived from the schema is exact.
import type { ClusterSpec } from "../../config/types";

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;

export type SpecTypeChecks = [
  Holds<Same<ClusterSpec["networking"]["cilium"]["ipam"], "" | "crd" | "eni">>,
  Holds<Same<ClusterSpec["networking"]["cilium"]["disableMasquerade"], boolean>>,
  Holds<Same<ClusterSpec["nodeGroups"][number]["minSize"], number>>,
  Holds<Same<ClusterSpec["api"]["access"], string[]>>,
  Holds<Same<ClusterSpec["cloudLabels"], Record<string, string>>>,
  Holds<Same<ClusterSpec["clusterName"], string>>,
  Holds<Same<ClusterSpec["region"], string>>,
];
