/**
 * Declares rendered Kubernetes objects as typed `@pulumi/kubernetes` resources. An add-on renders twice:
 * once at declaration with placeholders for values computed later (the shape: kinds, names and metadata,
 * so a preview lists every object), and once when those values are known. The two renders are joined by
 * object identity (`kind/namespace/name`), so reordering a renderer's output never mixes objects up.
 */
import { DaemonSet, DaemonSetArgs } from "@pulumi/kubernetes/apps/v1/daemonSet";
import { Deployment, DeploymentArgs } from "@pulumi/kubernetes/apps/v1/deployment";
import { CronJob, CronJobArgs } from "@pulumi/kubernetes/batch/v1/cronJob";
import { Job, JobArgs } from "@pulumi/kubernetes/batch/v1/job";
import { ConfigMap, ConfigMapArgs } from "@pulumi/kubernetes/core/v1/configMap";
import { Service, ServiceArgs } from "@pulumi/kubernetes/core/v1/service";
import { ServiceAccount, ServiceAccountArgs } from "@pulumi/kubernetes/core/v1/serviceAccount";
import { PodDisruptionBudget, PodDisruptionBudgetArgs } from "@pulumi/kubernetes/policy/v1/podDisruptionBudget";
import { ClusterRole, ClusterRoleArgs } from "@pulumi/kubernetes/rbac/v1/clusterRole";
import { ClusterRoleBinding, ClusterRoleBindingArgs } from "@pulumi/kubernetes/rbac/v1/clusterRoleBinding";
import { Role, RoleArgs } from "@pulumi/kubernetes/rbac/v1/role";
import { RoleBinding, RoleBindingArgs } from "@pulumi/kubernetes/rbac/v1/roleBinding";
import { CSIDriver, CSIDriverArgs } from "@pulumi/kubernetes/storage/v1/csidriver";
import { StorageClass, StorageClassArgs } from "@pulumi/kubernetes/storage/v1/storageClass";
import * as pulumi from "@pulumi/pulumi";
import { K8sObject, objectKey } from "./object";

/** An object whose fields below the top level may still be computed. */
type ObjectInputs = { [field: string]: pulumi.Input<unknown> };
type Declare = (name: string, object: ObjectInputs, opts: pulumi.CustomResourceOptions) => pulumi.CustomResource;

/** The typed resource class for each kind an add-on may render. */
const DECLARE = {
  ServiceAccount: (n, o, opts) => new ServiceAccount(n, o as unknown as ServiceAccountArgs, opts),
  ConfigMap: (n, o, opts) => new ConfigMap(n, o as unknown as ConfigMapArgs, opts),
  Service: (n, o, opts) => new Service(n, o as unknown as ServiceArgs, opts),
  ClusterRole: (n, o, opts) => new ClusterRole(n, o as unknown as ClusterRoleArgs, opts),
  ClusterRoleBinding: (n, o, opts) => new ClusterRoleBinding(n, o as unknown as ClusterRoleBindingArgs, opts),
  Role: (n, o, opts) => new Role(n, o as unknown as RoleArgs, opts),
  RoleBinding: (n, o, opts) => new RoleBinding(n, o as unknown as RoleBindingArgs, opts),
  DaemonSet: (n, o, opts) => new DaemonSet(n, o as unknown as DaemonSetArgs, opts),
  Deployment: (n, o, opts) => new Deployment(n, o as unknown as DeploymentArgs, opts),
  Job: (n, o, opts) => new Job(n, o as unknown as JobArgs, opts),
  CronJob: (n, o, opts) => new CronJob(n, o as unknown as CronJobArgs, opts),
  PodDisruptionBudget: (n, o, opts) => new PodDisruptionBudget(n, o as unknown as PodDisruptionBudgetArgs, opts),
  CSIDriver: (n, o, opts) => new CSIDriver(n, o as unknown as CSIDriverArgs, opts),
  StorageClass: (n, o, opts) => new StorageClass(n, o as unknown as StorageClassArgs, opts),
} satisfies Record<string, Declare>;

export type DeclarableKind = keyof typeof DECLARE;
export const DECLARABLE_KINDS = Object.keys(DECLARE) as DeclarableKind[];

/**
 * Each object's logical name, by object key: `<prefix>-<kind>-<name>`, the name existing stacks know it by.
 * An object of a kind and name an earlier one already has (in another namespace) gets
 * `<prefix>-<kind>-<namespace>/<name>` (no Kubernetes name holds a `/`), so only such duplicates take the
 * longer form and every other object keeps its URN.
 */
export function logicalNames(prefix: string, objects: readonly K8sObject[]): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Set<string>();
  for (const o of objects) {
    const kind = o.kind.toLowerCase();
    const plain = `${prefix}-${kind}-${o.metadata.name}`;
    const name = used.has(plain) ? `${prefix}-${kind}-${o.metadata.namespace ?? ""}/${o.metadata.name}` : plain;
    used.add(name);
    names.set(objectKey(o), name);
  }
  return names;
}

/** The real render's object for each key of the shape; an object only one render has is a renderer bug. */
export function joinByKey(shape: readonly K8sObject[], rendered: readonly K8sObject[]): Map<string, K8sObject> {
  const byKey = new Map(rendered.map((o) => [objectKey(o), o]));
  const shapeKeys = shape.map(objectKey);
  const missing = shapeKeys.filter((k) => !byKey.has(k));
  const extra = [...byKey.keys()].filter((k) => !shapeKeys.includes(k));
  if (missing.length || extra.length || byKey.size !== rendered.length) {
    throw new Error(
      `the two renders of an add-on differ in their objects: only at declaration [${missing.join(", ")}], ` +
        `only in the final render [${extra.join(", ")}]${byKey.size !== rendered.length ? ", duplicate keys" : ""}`,
    );
  }
  return byKey;
}

/**
 * Declares each object of `shape` under `opts.parent` (whose `providers` give the cluster's Kubernetes
 * provider). Top-level metadata comes from the shape, known at once; every other field from `rendered`.
 * `names`: the logical names of every object the add-on declares (all its stages), by object key.
 */
export function declareObjects(
  prefix: string,
  shape: readonly K8sObject[],
  rendered: pulumi.Output<readonly K8sObject[]>,
  opts: pulumi.CustomResourceOptions,
  names: ReadonlyMap<string, string> = logicalNames(prefix, shape),
): pulumi.CustomResource[] {
  const joined = rendered.apply((r) => joinByKey(shape, r));
  return shape.map((object) => {
    const declareKind: Declare | undefined = DECLARE[object.kind as DeclarableKind];
    if (!declareKind) throw new Error(`the Kubernetes layer cannot declare kind ${object.kind}`);
    const key = objectKey(object);
    const inputs: ObjectInputs = { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata };
    for (const field of Object.keys(object).filter((f) => !(f in inputs))) {
      inputs[field] = joined.apply((byKey) => byKey.get(key)![field]);
    }
    return declareKind(names.get(key)!, inputs, opts);
  });
}
