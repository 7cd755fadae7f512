/**
 * Where the program's add-ons go, per `addons.applyFrom`: the delivery each add-on declares through and
 * the resource options it gets. `deployer`: the cluster's one Kubernetes provider applies, configured once
 * each control-plane group's member wait has seen the API answer (components/controlPlane/refreshWait.ts);
 * a preview warns when config limits who reaches the API. `controlPlane`: the control-plane nodes apply the
 * objects themselves (Systems Manager runs the apply on them; every role's Session Manager statement already
 * lets the SSM agent register and run State Manager associations).
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import { afterWaits } from "../deployWait";
import { clusterTags } from "../tags";
import { TIMEOUTS } from "../timeouts";
import { API_LISTENER } from "../wellKnownPorts";
import type { ApiTarget } from "./apiReady";
import { AddonDelivery, fromControlPlane, throughProvider } from "./delivery";
import { clusterProvider } from "./provider";
import { deployerReachNotice, reachRemedies } from "./reach";

export interface ClusterAddonsArgs {
  spec: ClusterSpec;
  kubeconfig: pulumi.Input<string>;
  /** The control plane's instance groups: nothing is applied before they exist. */
  controlPlane: pulumi.Resource[];
  /** Their Auto Scaling groups' names: `controlPlane` targets exactly their instances. */
  controlPlaneGroupNames: pulumi.Input<string>[];
  /**
   * The groups' member waits (`controlPlaneMemberReplaced`), which end, with `deployer`, once the API
   * answers: the Kubernetes provider is configured after them.
   */
  membersReplaced: pulumi.Input<string>[];
  /** The cluster component the provider and the add-ons belong to. */
  parent?: pulumi.Resource;
}

export interface ClusterAddons {
  delivery: AddonDelivery;
  /** Options every add-on component is declared with. */
  opts: pulumi.ComponentResourceOptions;
}

/**
 * The API as the machine running `pulumi up` reaches it (`api.loadBalancer`), which the member waits wait
 * for when that machine applies the add-ons; undefined when the control plane applies them. A public API
 * that does not admit everyone has this machine's address checked against `api.access` first.
 */
export function deployerApi(
  spec: ClusterSpec,
  apiEndpoint: pulumi.Input<string>,
  caCertPem: pulumi.Input<string>,
): pulumi.Output<ApiTarget> | undefined {
  if (spec.addons.applyFrom === "controlPlane") return undefined;
  const limited = spec.api.loadBalancer === "public" && !spec.api.access.includes("0.0.0.0/0");
  return pulumi.output({
    url: pulumi.interpolate`https://${apiEndpoint}:${API_LISTENER}/readyz`,
    caCertPem,
    access: limited ? spec.api.access : [],
    remedies: reachRemedies(spec),
  });
}

export function clusterAddons(args: ClusterAddonsArgs): ClusterAddons {
  const { spec } = args;
  if (spec.addons.applyFrom === "controlPlane") {
    const delivery = fromControlPlane({
      clusterName: spec.clusterName,
      controlPlaneGroupNames: args.controlPlaneGroupNames,
      tags: (name) => clusterTags(spec, name),
      timeoutSeconds: TIMEOUTS.addons.associationSeconds,
    });
    return { delivery, opts: { dependsOn: args.controlPlane, parent: args.parent } };
  }
  // One Kubernetes provider for the cluster, configured once the API answers; every add-on gets it.
  const kubernetes = clusterProvider(
    "kubernetes",
    { clusterName: spec.clusterName, kubeconfig: afterWaits(args.kubeconfig, args.membersReplaced) },
    { parent: args.parent },
  );
  const notice = deployerReachNotice(spec);
  if (notice) void pulumi.log.warn(notice, kubernetes);
  return { delivery: throughProvider, opts: { providers: [kubernetes], parent: args.parent } };
}
