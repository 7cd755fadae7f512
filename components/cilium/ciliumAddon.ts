/**
 * CiliumAddon: Cilium's Kubernetes objects for the spec's version and IPAM mode, declared through an
 * explicit Kubernetes provider (the program's admin kubeconfig, a stable `clusterIdentifier` so a
 * computed kubeconfig never forces replacements, ConfigMaps updated in place), accounts, RBAC and the
 * ConfigMap first, then the agent and operator.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../spec/types";
import type { K8sObject } from "./k8sObject";
import { renderCiliumManifests } from "./manifests";

export interface CiliumAddonArgs {
  spec: ClusterSpec;
  kubeconfig: pulumi.Input<string>;
  /** DNS name of the API load balancer: agents and the operator reach the API there before the CNI is up. */
  apiEndpoint: pulumi.Input<string>;
  /** Resources the objects must wait for (the API server being ready). */
  dependsOn?: pulumi.Input<pulumi.Resource>[];
}

/** An object whose fields below the top level may still be computed (the API endpoint in env values). */
type ObjectInputs = { [field: string]: pulumi.Input<unknown> };
type Declare = (name: string, object: ObjectInputs, opts: pulumi.CustomResourceOptions) => pulumi.CustomResource;

/** The typed resource class for each kind the renderer produces. */
const DECLARE: Record<string, Declare> = {
  ServiceAccount: (n, o, opts) =>
    new k8s.core.v1.ServiceAccount(n, o as unknown as k8s.core.v1.ServiceAccountArgs, opts),
  ConfigMap: (n, o, opts) => new k8s.core.v1.ConfigMap(n, o as unknown as k8s.core.v1.ConfigMapArgs, opts),
  ClusterRole: (n, o, opts) => new k8s.rbac.v1.ClusterRole(n, o as unknown as k8s.rbac.v1.ClusterRoleArgs, opts),
  ClusterRoleBinding: (n, o, opts) =>
    new k8s.rbac.v1.ClusterRoleBinding(n, o as unknown as k8s.rbac.v1.ClusterRoleBindingArgs, opts),
  Role: (n, o, opts) => new k8s.rbac.v1.Role(n, o as unknown as k8s.rbac.v1.RoleArgs, opts),
  RoleBinding: (n, o, opts) => new k8s.rbac.v1.RoleBinding(n, o as unknown as k8s.rbac.v1.RoleBindingArgs, opts),
  DaemonSet: (n, o, opts) => new k8s.apps.v1.DaemonSet(n, o as unknown as k8s.apps.v1.DaemonSetArgs, opts),
  Deployment: (n, o, opts) => new k8s.apps.v1.Deployment(n, o as unknown as k8s.apps.v1.DeploymentArgs, opts),
  PodDisruptionBudget: (n, o, opts) =>
    new k8s.policy.v1.PodDisruptionBudget(n, o as unknown as k8s.policy.v1.PodDisruptionBudgetArgs, opts),
};

const logicalName = (prefix: string, o: K8sObject) => `${prefix}-${o.kind.toLowerCase()}-${o.metadata.name}`;

export class CiliumAddon extends pulumi.ComponentResource {
  /** SHA-256 of the rendered cilium-config data; a change rolls the agent and operator pods. */
  readonly configChecksum: pulumi.Output<string>;

  constructor(name: string, args: CiliumAddonArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:cilium:CiliumAddon", name, {}, opts);
    const { spec } = args;
    const provider = new k8s.Provider(
      `${name}-provider`,
      {
        kubeconfig: args.kubeconfig,
        clusterIdentifier: spec.clusterName,
        enableServerSideApply: true,
        enableConfigMapMutable: true,
      },
      { parent: this, dependsOn: args.dependsOn },
    );
    // Only env values hold the API endpoint, which is computed until the load balancer exists: names,
    // kinds and metadata are known at declaration, so a preview shows every object.
    const rendered = pulumi.output(args.apiEndpoint).apply((endpoint) => renderCiliumManifests(spec, endpoint));
    const shape = renderCiliumManifests(spec, "");
    const declare = (key: "foundation" | "workloads", dependsOn: pulumi.Resource[]) =>
      shape[key].map((object, i) => {
        const declareKind = DECLARE[object.kind];
        if (!declareKind) throw new Error(`CiliumAddon cannot declare kind ${object.kind}`);
        const inputs: ObjectInputs = { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata };
        for (const field of Object.keys(object).filter((f) => !(f in inputs))) {
          inputs[field] = rendered.apply((r) => r[key][i][field]);
        }
        return declareKind(logicalName(name, object), inputs, { parent: this, provider, dependsOn });
      });
    declare("workloads", declare("foundation", []));

    this.configChecksum = pulumi.output(shape.configChecksum);
    this.registerOutputs({ configChecksum: this.configChecksum });
  }
}
