/**
 * The guard rails of a cilium-cluster stack as Pulumi CrossGuard policies: they run in
 * `pulumi preview --policy-pack policy` against real inputs, and offline in the tests against the plan.
 */
import { CLUSTER_TAG } from "../../catalogs/kopsTagKeys";
import type {
  PolicyResource,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import { ENI_ACTIONS } from "../../components/cilium/ciliumEniRights";
import { apiAccessRuleName, ICMP_FRAGMENTATION_NEEDED } from "../../components/network/securityRules";
import { USER_DATA_BUDGET_BYTES, USER_DATA_LIMIT_BYTES } from "../../components/nodes/userDataBudget";
import { API_LISTENER } from "../../components/wellKnownPorts";
import { TAGGABLE } from "./taggable";

const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";
const IAM_POLICY = "aws:iam/policy:Policy";
const ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment";

/** The ENI actions that change interfaces or addresses; describes are harmless. */
const ENI_MUTATIONS = ENI_ACTIONS.filter((a) => !a.startsWith("ec2:Describe"));

type Props = Record<string, unknown>;
type Statement = { Action?: string | string[] };

const policy = (
  name: string,
  description: string,
  check: (args: ResourceValidationArgs, props: Props, report: (message: string) => void) => void,
  enforcementLevel: "mandatory" | "advisory" = "mandatory",
): ResourceValidationPolicy => ({
  name,
  description,
  enforcementLevel,
  validateResource: (args, reportViolation) => check(args, args.props as Props, reportViolation),
});

/** User data's size as AWS counts it: the bytes before base64; 0 for anything but a launch template. */
const userDataBytes = (args: ResourceValidationArgs, props: Props): number =>
  args.type === LAUNCH_TEMPLATE && typeof props.userData === "string"
    ? Buffer.from(props.userData, "base64").length
    : 0;

const actionsOf = (document: string): string[] =>
  ((JSON.parse(document) as { Statement?: Statement[] }).Statement ?? []).flatMap((s) =>
    Array.isArray(s.Action) ? s.Action : s.Action ? [s.Action] : [],
  );

const isOpenIngressRule = (args: ResourceValidationArgs, props: Props) =>
  args.type === "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule" && props.cidrIpv4 === "0.0.0.0/0";

/** The API listener's rule for an `api.access` of 0.0.0.0/0: named for its CIDR. */
const isApiListenerOpenRule = (props: Props) =>
  props.ipProtocol === "tcp" &&
  props.fromPort === API_LISTENER &&
  props.toPort === API_LISTENER &&
  (props.tags as Props | undefined)?.Name === apiAccessRuleName("0.0.0.0/0");

/** ICMP type 3 code 4 (fragmentation needed) only: routers anywhere report a path's MTU with it. */
const isFragmentationNeeded = (props: Props) =>
  props.ipProtocol === "icmp" &&
  props.fromPort === ICMP_FRAGMENTATION_NEEDED.type &&
  props.toPort === ICMP_FRAGMENTATION_NEEDED.code;

export const policies: ResourceValidationPolicy[] = [
  policy("imdsv2-required", "Launch templates require IMDSv2 session tokens.", (args, props, report) => {
    if (args.type !== LAUNCH_TEMPLATE) return;
    const options = props.metadataOptions as Props | undefined;
    if (options?.httpTokens !== "required") report('metadataOptions.httpTokens must be "required" (IMDSv2)');
  }),

  policy("encrypted-root-volumes", "Launch templates encrypt every EBS volume.", (args, props, report) => {
    if (args.type !== LAUNCH_TEMPLATE) return;
    const mappings = (props.blockDeviceMappings as { deviceName?: string; ebs?: Props }[] | undefined) ?? [];
    if (mappings.length === 0) report("no block device mapping: the root volume would not be encrypted");
    for (const m of mappings) {
      if (String(m.ebs?.encrypted) !== "true") report(`volume ${m.deviceName ?? "?"} is not encrypted`);
    }
  }),

  policy("user-data-size", "Launch template user data stays within AWS's 16 KB.", (args, props, report) => {
    const size = userDataBytes(args, props);
    if (size > USER_DATA_LIMIT_BYTES)
      report(`user data is ${size} bytes, over AWS's limit of ${USER_DATA_LIMIT_BYTES}`);
  }),

  policy(
    "user-data-budget",
    "Launch template user data stays within the program's budget below AWS's limit (docs/nodes.md).",
    (args, props, report) => {
      const size = userDataBytes(args, props);
      if (size > USER_DATA_BUDGET_BYTES) {
        report(
          `user data is ${size} bytes, over the budget of ${USER_DATA_BUDGET_BYTES}: user data is only the loader, and the rest goes in the group's installer in the bootstrap bucket (docs/nodes.md)`,
        );
      }
    },
    "advisory",
  ),

  policy(
    "no-open-ingress",
    "No security-group rule admits 0.0.0.0/0 but path-MTU discovery's ICMP (and the API listener's, reported apart).",
    (args, props, report) => {
      if (isOpenIngressRule(args, props) && !isApiListenerOpenRule(props) && !isFragmentationNeeded(props)) {
        report(`ingress from 0.0.0.0/0 (${props.ipProtocol} ${props.fromPort}-${props.toPort})`);
      }
      if (args.type === "aws:ec2/securityGroup:SecurityGroup") {
        for (const rule of (props.ingress as { cidrBlocks?: string[] }[] | undefined) ?? []) {
          if (rule.cidrBlocks?.includes("0.0.0.0/0")) report("inline ingress from 0.0.0.0/0");
        }
      }
    },
  ),

  policy(
    "api-open-to-internet",
    "The Kubernetes API admits the whole internet only where api.access says 0.0.0.0/0, and is reported then.",
    (args, props, report) => {
      if (isOpenIngressRule(args, props) && isApiListenerOpenRule(props)) {
        report(
          "the API load balancer admits 0.0.0.0/0 (api.access): anyone may try credentials on the API; list your own CIDRs instead",
        );
      }
    },
    "advisory",
  ),

  policy("no-wildcard-iam-actions", "IAM policies name every action; no `*` actions.", (args, props, report) => {
    if (args.type !== IAM_POLICY || typeof props.policy !== "string") return;
    for (const action of actionsOf(props.policy)) if (action.includes("*")) report(`wildcard action ${action}`);
  }),

  policy("cluster-tag-required", "Every taggable resource carries KubernetesCluster.", (args, props, report) => {
    if (!TAGGABLE.has(args.type)) return;
    const tags = props.tags;
    const has = Array.isArray(tags)
      ? tags.some((t: Props) => t.key === CLUSTER_TAG)
      : typeof tags === "object" && tags !== null && CLUSTER_TAG in tags;
    if (!has) report("missing the KubernetesCluster tag");
  }),
];

/**
 * The policy an attachment attaches. In a preview the engine names it as the dependency of `policyArn` (whose
 * value is unknown until the policy exists); otherwise it is the policy whose ARN `policyArn` holds
 * (`arn:<partition>:iam::<account>:policy<path><name>`).
 */
function attachedPolicy(attachment: PolicyResource, all: readonly PolicyResource[]): PolicyResource | undefined {
  const dependency = attachment.propertyDependencies?.policyArn?.find((r) => r.type === IAM_POLICY);
  if (dependency) return dependency;
  const arn = String(attachment.props.policyArn);
  return all.find((r) => r.type === IAM_POLICY && arn.endsWith(`:policy${r.props.path ?? "/"}${r.props.name}`));
}

/** Policies over the whole stack: what a policy grants depends on the role it is attached to. */
export const stackPolicies: StackValidationPolicy[] = [
  {
    name: "eni-actions-control-plane-only",
    description: "Only the control-plane role may change ENIs (the Cilium operator runs there).",
    enforcementLevel: "mandatory",
    validateStack: (args, report) => {
      for (const attachment of args.resources.filter((r) => r.type === ATTACHMENT)) {
        const role = String(attachment.props.role);
        if (role.startsWith("masters.")) continue;
        const attached = attachedPolicy(attachment, args.resources);
        if (typeof attached?.props.policy !== "string") continue;
        for (const action of actionsOf(attached.props.policy)) {
          if (ENI_MUTATIONS.includes(action)) {
            report(
              `${action} in ${String(attached.props.name)} on role ${role}, not the control plane's`,
              attachment.urn,
            );
          }
        }
      }
    },
  },
];
