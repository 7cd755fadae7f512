/**
 * The mock cloud the offline plan runs against: deterministic, clearly fake answers. Resource IDs and ARNs
 * derive from type and name; invokes answer from the stack config; an invoke it does not know fails,
 * naming its token, rather than returning something the program would misread.
 */
import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";

export const MOCK_ACCOUNT = "000000000000";

/** Hex digest of a name, for fake values that must look unique but stay the same from run to run. */
const digest = (text: string, length: number): string =>
  createHash("sha256").update(text).digest("hex").slice(0, length);

function computedOutputs(
  type: string,
  name: string,
  inputs: Record<string, unknown>,
  region: string,
): Record<string, unknown> {
  const arnService = type.split(":")[1]?.split("/")[0] ?? "mock";
  const out: Record<string, unknown> = {};
  if (type.startsWith("aws:"))
    out.arn = `arn:aws:${arnService}:${region}:${MOCK_ACCOUNT}:${type.split(":")[2]}/${name}`;
  switch (type) {
    case "aws:ec2/launchTemplate:LaunchTemplate":
      out.latestVersion = 1;
      out.defaultVersion = 1;
      break;
    case "aws:ssm/document:Document":
      // A version number that changes with the content, as SSM's next version would.
      out.latestVersion = String(parseInt(digest(String(inputs.content), 6), 16) + 1);
      break;
    case "aws:lb/loadBalancer:LoadBalancer":
      out.dnsName = `${mockDnsLabel(name)}.elb.${region}.amazonaws.com.mock`;
      out.zoneId = "ZMOCK00000000";
      break;
    case "aws:sqs/queue:Queue":
      // SQS names a queue by its account and name, not by type.
      out.arn = `arn:aws:sqs:${region}:${MOCK_ACCOUNT}:${String(inputs.name)}`;
      out.url = `https://sqs.${region}.amazonaws.com/${MOCK_ACCOUNT}/${String(inputs.name)}`;
      break;
    case "aws:route53/zone:Zone":
      out.zoneId = `ZMOCK${digest(name, 12).toUpperCase()}`;
      break;
    case "aws:iam/policy:Policy":
      // IAM ARNs name no region: `arn:aws:iam::<account>:policy<path><name>`.
      out.arn = `arn:aws:iam::${MOCK_ACCOUNT}:policy${inputs.path ?? "/"}${inputs.name ?? name}`;
      break;
    case "aws:iam/role:Role":
    case "aws:iam/instanceProfile:InstanceProfile":
      out.arn = `arn:aws:iam::${MOCK_ACCOUNT}:${type.endsWith("Role") ? "role" : "instance-profile"}${inputs.path ?? "/"}${inputs.name ?? name}`;
      out.uniqueId = `AROAMOCK${digest(name, 12).toUpperCase()}`;
      break;
    case "random:index/randomId:RandomId":
      out.hex = digest(name, Number(inputs.byteLength ?? 8) * 2);
      break;
  }
  return out;
}

/**
 * The first label of a mock DNS name (`<name>-<digest>`): what the diff finds a replaced load balancer's
 * DNS name by, in whatever holds it.
 */
export const mockDnsLabel = (name: string): string => `${name}-${digest(name, 8)}`;

/** `mock-<kind>-<name>`, e.g. `mock-vpc-network-vpc`: unique per type and name, and plainly fake. */
export function mockId(type: string, name: string): string {
  const kind = type.startsWith("pulumi:providers:") ? "provider" : (type.split(":").pop() ?? type).toLowerCase();
  return `mock-${kind}-${name}`;
}

/** The organization a DIY backend (`pulumi login --local`, S3) gives every stack: a plan's, and so the name
 * of the stack its StackReference to itself reads. */
export const PLAN_ORGANIZATION = "organization";

/** The type of a StackReference, which the program reads its own stack's last outputs through. */
const STACK_REFERENCE = "pulumi:pulumi:StackReference";

/**
 * Mocks for one plan run, answering from the stack's region and zones; a StackReference (the program's to
 * its own stack) reads `stackOutputs`, the outputs of the stack's last update: none for a stack not deployed.
 */
export function planMocks(
  region: string,
  zones: readonly string[],
  stackOutputs: Record<string, unknown> = {},
): pulumi.runtime.Mocks {
  return {
    newResource(args: pulumi.runtime.MockResourceArgs) {
      if (args.type === STACK_REFERENCE)
        return { id: args.id, state: { name: args.inputs.name, outputs: stackOutputs, secretOutputNames: [] } };
      const id = mockId(args.type, args.name);
      return { id, state: { ...args.inputs, ...computedOutputs(args.type, args.name, args.inputs, region) } };
    },
    call(args: pulumi.runtime.MockCallArgs) {
      switch (args.token) {
        case "aws:index/getRegion:getRegion":
          return { name: region, id: region, region, endpoint: `ec2.${region}.amazonaws.com` };
        case "aws:index/getPartition:getPartition":
          return { partition: "aws", dnsSuffix: "amazonaws.com", id: "aws" };
        case "aws:index/getCallerIdentity:getCallerIdentity":
          return {
            accountId: MOCK_ACCOUNT,
            arn: `arn:aws:iam::${MOCK_ACCOUNT}:user/mock`,
            userId: "MOCKUSER",
            id: MOCK_ACCOUNT,
          };
        case "aws:index/getAvailabilityZones:getAvailabilityZones":
          return { names: [...zones], zoneIds: zones.map((_, i) => `mock-az${i + 1}`), id: region };
        case "aws:ec2/getAmi:getAmi": {
          const key = JSON.stringify(args.inputs.filters ?? []);
          return {
            id: `ami-${digest(key, 17)}`,
            imageId: `ami-${digest(key, 17)}`,
            name: "mock-ubuntu-24.04",
            architecture: "x86_64",
          };
        }
        default:
          throw new Error(`the plan's mocks do not answer invoke ${args.token}; add it to cli/plan/mocks.ts`);
      }
    },
  };
}
