/**
 * What a plan says about the cluster it builds, read from its resources and outputs rather than from the
 * config that made it: a plan written by `--out` on another branch is all the diff has of the base. Pure.
 */
import { ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import type { Plan, PlannedResource } from "./run";

export const ASG = "aws:autoscaling/group:Group";
export const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";
export const LOAD_BALANCER = "aws:lb/loadBalancer:LoadBalancer";
/** A group's installer in the bootstrap bucket (components/nodes/bootstrapBundle.ts), `<group>-bootstrap`. */
export const BOOTSTRAP_SCRIPT = "aws:s3/bucketObjectv2:BucketObjectv2";
const LIFECYCLE_HOOK = "aws:autoscaling/lifecycleHook:LifecycleHook";

type Inputs = Record<string, unknown>;
export const inputsOf = (r: PlannedResource | undefined): Inputs => (r?.inputs ?? {}) as Inputs;

export function isControlPlane(r: PlannedResource | undefined): boolean {
  const tags = inputsOf(r).tags;
  return Array.isArray(tags) && tags.some((t) => (t as { key?: string }).key === ROLE_TAGS["control-plane"]);
}

/** The instance group an Auto Scaling group or launch template belongs to: its component's name. */
export const groupOf = (r: { name: string }): string => r.name.replace(/-(group|template)$/, "");

/** The control plane's etcd members: one per control-plane Auto Scaling group (each holds one instance). */
export const controlPlaneMembers = (plan: Plan): number =>
  plan.resources.filter((r) => r.type === ASG && isControlPlane(r)).length;

/** The cluster's name, as the stack's `clusterName` output gives it. */
export const clusterNameOf = (plan: Plan): string | undefined =>
  typeof plan.outputs.clusterName === "string" ? plan.outputs.clusterName : undefined;

/** A lifecycle hook that holds an instance of the group while it terminates. */
export interface TerminationHook {
  name: string;
  heartbeatTimeout: number;
}

/** The termination hooks declared for an Auto Scaling group (matched by the group's name in AWS). */
export function terminationHooks(plan: Plan, group: PlannedResource): TerminationHook[] {
  const groupName = inputsOf(group).name;
  return plan.resources
    .filter((r) => r.type === LIFECYCLE_HOOK && inputsOf(r).autoscalingGroupName === groupName)
    .filter((r) => inputsOf(r).lifecycleTransition === "autoscaling:EC2_INSTANCE_TERMINATING")
    .map((r) => ({ name: String(inputsOf(r).name), heartbeatTimeout: Number(inputsOf(r).heartbeatTimeout) }));
}

type Version = [number, number, number];

export interface Cilium {
  /** The agent's image version. */
  version?: Version;
  /** cilium-config's `ipam`. */
  ipam?: string;
}

const AGENT_IMAGE = /quay\.io\/cilium\/cilium:v(\d+)\.(\d+)\.(\d+)/;
const IPAM_LINE = /^ +ipam: (\S+)$/m;

/** The scripts of the plan's SSM documents: with `addons.applyFrom: controlPlane`, Cilium's manifests. */
function ssmScripts(plan: Plan): string[] {
  return plan.resources
    .filter((r) => r.type === "aws:ssm/document:Document" && typeof inputsOf(r).content === "string")
    .map((r) => {
      const doc = JSON.parse(inputsOf(r).content as string) as { mainSteps?: { inputs?: { runCommand?: string[] } }[] };
      return (doc.mainSteps ?? []).flatMap((s) => s.inputs?.runCommand ?? []).join("\n");
    });
}

/** What Cilium the plan runs: from its Kubernetes objects, or from the script that applies them. */
export function ciliumOf(plan: Plan): Cilium {
  const config = plan.resources.find(
    (r) => r.type === "kubernetes:core/v1:ConfigMap" && (inputsOf(r).metadata as Inputs)?.name === "cilium-config",
  );
  const agent = plan.resources.find((r) => r.type === "kubernetes:apps/v1:DaemonSet" && r.name.endsWith("-cilium"));
  const scripts = ssmScripts(plan);
  const image = [JSON.stringify(agent?.inputs ?? {}), ...scripts].map((t) => AGENT_IMAGE.exec(t)).find(Boolean);
  const data = inputsOf(config).data as Inputs | undefined;
  const ipam = config ? data?.ipam : scripts.map((s) => IPAM_LINE.exec(s)?.[1]).find(Boolean);
  return {
    version: image ? [Number(image[1]), Number(image[2]), Number(image[3])] : undefined,
    ipam: typeof ipam === "string" ? ipam : undefined,
  };
}
