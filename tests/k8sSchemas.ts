/** Rendered Kubernetes objects checked against the Kubernetes OpenAPI schemas (`kubernetes-models`). */
import * as apps from "kubernetes-models/apps/v1";
import * as batch from "kubernetes-models/batch/v1";
import * as policy from "kubernetes-models/policy/v1";
import * as rbac from "kubernetes-models/rbac.authorization.k8s.io/v1";
import * as storage from "kubernetes-models/storage.k8s.io/v1";
import * as core from "kubernetes-models/v1";
import type { K8sObject } from "../components/k8s/object";

type Model = new (data: never) => { validate(): void };

/** The schema model of each `apiVersion/kind` add-ons render. */
export const SCHEMA_MODELS: Record<string, Model> = {
  "v1/ServiceAccount": core.ServiceAccount,
  "v1/ConfigMap": core.ConfigMap,
  "v1/Service": core.Service,
  "rbac.authorization.k8s.io/v1/ClusterRole": rbac.ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": rbac.ClusterRoleBinding,
  "rbac.authorization.k8s.io/v1/Role": rbac.Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": rbac.RoleBinding,
  "apps/v1/DaemonSet": apps.DaemonSet,
  "apps/v1/Deployment": apps.Deployment,
  "batch/v1/Job": batch.Job,
  "batch/v1/CronJob": batch.CronJob,
  "policy/v1/PodDisruptionBudget": policy.PodDisruptionBudget,
  "storage.k8s.io/v1/CSIDriver": storage.CSIDriver,
  "storage.k8s.io/v1/StorageClass": storage.StorageClass,
};

/** Throws when the object's `apiVersion/kind` has no model or the object breaks its schema. */
export function validateAgainstSchema(object: K8sObject): void {
  const Model = SCHEMA_MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) throw new Error(`no schema model for ${object.apiVersion}/${object.kind}`);
  new Model(object as never).validate();
}
