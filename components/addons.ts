/**
 * The cluster's add-ons: each feature that runs workloads in the cluster, listed once. The Cluster declares
 * every add-on its spec turns on from this list, and validate-cluster expects the workloads of the same
 * renders (cli/clusterCheck/expectations.ts), so a new add-on is one entry here. Its AWS permissions are its
 * statement source, in its own folder, listed in statementSources.ts.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../config/types";
import { CiliumAddon } from "./cilium/ciliumAddon";
import { renderCiliumManifests } from "./cilium/ciliumManifests";
import { AwsCloudController } from "./cloudController/awsCloudController";
import { renderCloudControllerManifests } from "./cloudController/cloudControllerManifests";
import { NodeTerminationHandler } from "./drain/nodeTerminationHandler";
import { renderNodeTerminationHandlerManifests } from "./drain/nodeTerminationHandlerManifests";
import { NodeTerminationHandlerQueue } from "./drain/nodeTerminationHandlerQueue";
import { EbsCsiDriver } from "./ebsCsi/ebsCsiDriver";
import { renderEbsCsiManifests } from "./ebsCsi/ebsCsiManifests";
import type { AwsCoordinates } from "./iam/statementSource";
import type { AddonDelivery } from "./k8s/delivery";
import type { StagedObjects } from "./k8s/stages";

/** What an add-on's objects hold beside the spec: values known only once deployed, in env values alone. */
export interface AddonInputs {
  /** The API's internal name: agents and controllers reach the API there before Service addresses route. */
  apiEndpoint: string;
  /** The URL of the drain's queue. */
  queueUrl: string;
}

export interface AddonContext {
  spec: ClusterSpec;
  apiEndpoint: pulumi.Input<string>;
  coordinates: pulumi.Output<AwsCoordinates>;
  /** How the objects reach the cluster (`addons.applyFrom`). */
  delivery: AddonDelivery;
  /** The add-on component's options: the cluster's Kubernetes provider, or what it waits for. */
  addonOpts: pulumi.ComponentResourceOptions;
  /** The options of AWS resources an add-on declares beside its objects. */
  awsOpts: pulumi.ComponentResourceOptions;
}

export interface Addon {
  /** Its component's name, which validate-cluster reports its workloads under. */
  name: string;
  enabled: (spec: ClusterSpec) => boolean;
  /** Its objects as its component renders them. */
  render: (spec: ClusterSpec, inputs: AddonInputs) => StagedObjects;
  /** Declares it in the cluster; what it returns joins the Cluster's outputs. */
  declare: (context: AddonContext) => Record<string, pulumi.Output<string>>;
}

const always = () => true;

export const ADDONS: readonly Addon[] = [
  {
    name: "cilium",
    enabled: always,
    render: (spec, { apiEndpoint }) => renderCiliumManifests(spec, apiEndpoint),
    declare: ({ spec, apiEndpoint, delivery, addonOpts }) => ({
      ciliumConfigChecksum: new CiliumAddon("cilium", { spec, apiEndpoint, delivery }, addonOpts).configChecksum,
    }),
  },
  {
    name: "aws-cloud-controller",
    enabled: always,
    render: (spec, { apiEndpoint }) => renderCloudControllerManifests(spec, apiEndpoint),
    declare: ({ spec, apiEndpoint, delivery, addonOpts }) => {
      new AwsCloudController("aws-cloud-controller", { spec, apiEndpoint, delivery }, addonOpts);
      return {};
    },
  },
  {
    name: "ebs-csi-driver",
    enabled: (spec) => spec.addons.ebsCsiDriver.enabled,
    render: (spec) => renderEbsCsiManifests(spec),
    declare: ({ spec, delivery, addonOpts }) => {
      new EbsCsiDriver("ebs-csi-driver", { spec, delivery }, addonOpts);
      return {};
    },
  },
  {
    // Every group's drain hook holds a terminating instance until the handler has drained its node.
    name: "node-termination-handler",
    enabled: always,
    render: (spec, { queueUrl }) => renderNodeTerminationHandlerManifests(spec, queueUrl),
    declare: ({ spec, coordinates, delivery, addonOpts, awsOpts }) => {
      const queue = new NodeTerminationHandlerQueue("drain-queue", { spec, coordinates }, awsOpts);
      new NodeTerminationHandler("node-termination-handler", { spec, queueUrl: queue.queueUrl, delivery }, addonOpts);
      return {};
    },
  },
];
