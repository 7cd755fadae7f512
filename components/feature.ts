/**
 * A feature of the cluster, as the registry (features.ts) lists it: its AWS permissions, and what it runs in
 * the cluster, if anything. Each feature's entry lives in its own folder; the Cluster declares the add-ons
 * and gives the roles the permissions of every entry, and validate-cluster expects the add-ons' workloads.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { AnyField } from "../config/schemaTypes";
import type { ClusterSpec } from "../config/types";
import type { FeatureRule } from "../config/validation/validateConfig";
import type { AwsCoordinates, StatementSource } from "./iam/statementSource";
import type { IntendedDifference } from "./k8s/chartDifference";
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
  enabled: (spec: ClusterSpec) => boolean;
  /** Its objects as its component renders them. */
  render: (spec: ClusterSpec, inputs: AddonInputs) => StagedObjects;
  /** Declares it in the cluster; what it returns joins the Cluster's outputs. */
  declare: (context: AddonContext) => Record<string, pulumi.Output<string>>;
  /**
   * Its reviewed differences from its upstream chart, which its parity test (tests/parity/) renders with Helm
   * and compares; docs/cilium.md and docs/aws-addons.md list them.
   */
  chartDifferences: readonly IntendedDifference[];
}

/** The config objects a feature's keys may go under (config/schema.ts spreads each one's in). */
export type KeysParent = "addons" | "controlPlane" | "networking.cilium";

/**
 * A feature's config keys, under the object they belong to, with their rules across keys as data
 * (`requires`): `npm run generate` writes every feature's into config/featureKeys.ts, which the schema
 * takes in, so the spec's type, defaults, unknown-key checks, validation and docs come from here.
 */
export interface FeatureKeys {
  under: KeysParent;
  keys: Readonly<Record<string, AnyField>>;
  /** Its rules that are more than "this key needs that value", as code (clusterConfigValidation.ts runs them). */
  rules?: readonly FeatureRule[];
}

export interface Feature {
  /** Its name; an add-on's component takes it, and validate-cluster reports its workloads under it. */
  name: string;
  /** Its config keys, if it has any of its own. */
  config?: FeatureKeys;
  /** The AWS permissions its parts call with, per role (docs/iam.md); none for a feature that calls no AWS API. */
  rights: readonly StatementSource[];
  /** What it runs in the cluster. */
  addon?: Addon;
}
