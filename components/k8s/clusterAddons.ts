/**
 * Where the program's add-ons go, per `addons.applyFrom`: the delivery each add-on declares through and
 * the resource options it gets. `deployer`: ApiReady waits for the API, then the cluster's one Kubernetes
 * provider applies (and a preview warns when config limits who reaches the API). `controlPlane`: the
 * control-plane nodes apply the objects themselves (Systems Manager runs the apply on them; every role's
 * Session Manager statement already lets the SSM agent register and run State Manager associations).
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../spec/types";
import { clusterTags } from "../tags";
import { TIMEOUTS } from "../timeouts";
import { ApiReady } from "./apiReady";
import { AddonDelivery, fromControlPlane, throughProvider } from "./delivery";
import { API_LISTENER } from "../wellKnownPorts";
import { clusterProvider } from "./provider";
import { deployerReachNotice, reachRemedies } from "./reach";

export interface ClusterAddonsArgs {
  spec: ClusterSpec;
  /** The API as users reach it (`api.loadBalancer`): what the deployer connects to. */
  apiEndpoint: pulumi.Input<string>;
  caCertPem: pulumi.Input<string>;
  kubeconfig: pulumi.Input<string>;
  /** The control plane's instance groups: nothing is applied before they exist. */
  controlPlane: pulumi.Resource[];
  /** Their Auto Scaling groups' names: `controlPlane` targets exactly their instances. */
  controlPlaneGroupNames: pulumi.Input<string>[];
  /** Former URNs of the Kubernetes provider, so existing stacks keep it. */
  providerAliases: pulumi.Input<string>[];
}

export interface ClusterAddons {
  delivery: AddonDelivery;
  /** Options every add-on component is declared with. */
  opts: pulumi.ComponentResourceOptions;
}

/** ApiReady waits this long for the API. */
const TIMEOUT_SECONDS = 1800;

export function clusterAddons(args: ClusterAddonsArgs): ClusterAddons {
  const { spec } = args;
  if (spec.addons.applyFrom === "controlPlane") {
    const delivery = fromControlPlane({
      clusterName: spec.clusterName,
      controlPlaneGroupNames: args.controlPlaneGroupNames,
      tags: (name) => clusterTags(spec, name),
      timeoutSeconds: TIMEOUTS.addons.associationSeconds,
    });
    return { delivery, opts: { dependsOn: args.controlPlane } };
  }
  const apiReady = new ApiReady(
    "api-ready",
    {
      url: pulumi.interpolate`https://${args.apiEndpoint}:${API_LISTENER}/readyz`,
      caCertPem: args.caCertPem,
      timeoutSeconds: TIMEOUT_SECONDS,
      silentLimitSeconds: 600,
      // A public API admitting only some addresses: this machine's address is checked before the wait.
      // Sorted: the list's order means nothing, so reordering api.access changes nothing here either.
      access:
        spec.api.loadBalancer === "public" && !spec.api.access.includes("0.0.0.0/0") ? [...spec.api.access].sort() : [],
      remedies: reachRemedies(spec),
    },
    { dependsOn: args.controlPlane },
  );
  const notice = deployerReachNotice(spec);
  if (notice) void pulumi.log.warn(notice, apiReady);
  // One Kubernetes provider for the cluster, configured once the API answers; every add-on gets it.
  const kubernetes = clusterProvider(
    "kubernetes",
    { clusterName: spec.clusterName, kubeconfig: args.kubeconfig },
    { dependsOn: [apiReady], aliases: args.providerAliases },
  );
  return { delivery: throughProvider, opts: { providers: [kubernetes], dependsOn: [apiReady] } };
}
