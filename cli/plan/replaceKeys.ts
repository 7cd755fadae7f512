/**
 * Input properties whose change makes the provider replace the resource (ForceNew in the provider
 * schemas) for the resource types this program declares. The offline diff uses it to flag replacements;
 * `pulumi preview` against a real backend is the authority.
 */
export const REPLACE_ON_CHANGE: Record<string, readonly string[]> = {
  "aws:ec2/vpc:Vpc": ["cidrBlock", "instanceTenancy"],
  "aws:ec2/subnet:Subnet": ["cidrBlock", "availabilityZone", "vpcId"],
  "aws:ec2/internetGateway:InternetGateway": [],
  "aws:ec2/eip:Eip": ["domain"],
  "aws:ec2/natGateway:NatGateway": ["allocationId", "subnetId", "connectivityType"],
  "aws:ec2/routeTable:RouteTable": ["vpcId"],
  "aws:ec2/route:Route": ["routeTableId", "destinationCidrBlock"],
  "aws:ec2/routeTableAssociation:RouteTableAssociation": ["subnetId"],
  "aws:ec2/securityGroup:SecurityGroup": ["name", "namePrefix", "vpcId", "description"],
  "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": ["securityGroupId"],
  "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": ["securityGroupId"],
  "aws:lb/loadBalancer:LoadBalancer": ["name", "internal", "loadBalancerType"],
  "aws:lb/targetGroup:TargetGroup": ["name", "port", "protocol", "vpcId", "targetType"],
  "aws:lb/listener:Listener": ["loadBalancerArn"],
  "aws:iam/role:Role": ["name", "path"],
  "aws:iam/policy:Policy": ["name", "namePrefix", "path", "description"],
  "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ["role", "policyArn"],
  "aws:iam/instanceProfile:InstanceProfile": ["name", "path"],
  "aws:ec2/launchTemplate:LaunchTemplate": ["name"],
  // initialLifecycleHooks: ForceNew in the provider, and never read back (the program ignores its changes).
  "aws:autoscaling/group:Group": ["name", "initialLifecycleHooks"],
  "aws:autoscaling/lifecycleHook:LifecycleHook": ["name"],
  "aws:ssm/parameter:Parameter": ["name"],
  "aws:kms/key:Key": ["customerMasterKeySpec", "keySpec", "keyUsage", "multiRegion", "customKeyStoreId", "xksKeyId"],
  "aws:kms/alias:Alias": ["name", "namePrefix"],
  "aws:ssm/document:Document": ["name"],
  // documentVersion: the program's replaceOnChanges, so a new document version is applied and waited for.
  "aws:ssm/association:Association": ["name", "instanceId", "documentVersion"],
  "aws:s3/bucket:Bucket": ["bucket", "bucketPrefix"],
  "aws:cloudwatch/metricAlarm:MetricAlarm": ["name"],
  "aws:sqs/queue:Queue": ["name", "namePrefix", "fifoQueue"],
  "aws:cloudwatch/eventRule:EventRule": ["name", "namePrefix", "eventBusName"],
  "aws:cloudwatch/eventTarget:EventTarget": ["rule", "targetId", "eventBusName"],
  "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": ["bucket"],
  "aws:s3/bucketOwnershipControls:BucketOwnershipControls": ["bucket"],
  "aws:s3/bucketVersioning:BucketVersioning": ["bucket"],
  "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": ["bucket"],
  "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": ["bucket"],
  "aws:s3/bucketPolicy:BucketPolicy": ["bucket"],
  // content: each group's installer is named by its content's digest (components/nodes/bootstrapBundle.ts), so
  // new content is a new key, a new object, and a new user data for the group's loader.
  "aws:s3/bucketObjectv2:BucketObjectv2": ["bucket", "key", "content"],
  "aws:route53/zone:Zone": ["name", "delegationSetId"],
  "aws:route53/record:Record": ["zoneId", "name", "type"],
  "random:index/randomId:RandomId": ["*"],
  // The provider is replaced only when its clusterIdentifier changes (the program always sets one).
  "pulumi:providers:kubernetes": ["clusterIdentifier"],
};

type Inputs = Record<string, unknown>;
const count = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

/**
 * Replacements the provider decides from the old and new values (its CustomizeDiff), beyond fixed keys:
 * each rule gives the top-level inputs that force replacement, given the inputs before and after and the
 * top-level inputs that change (a reference to a replaced resource counts as a change).
 */
const REPLACE_WHEN: Record<string, (before: Inputs, after: Inputs, changed: ReadonlySet<string>) => string[]> = {
  // terraform-provider-aws customizeDiffLoadBalancerNLB: a network load balancer's subnets can only grow in
  // place; a subnet set that changes without growing (a zone removed, a subnet replaced) is a new one, and
  // so is gaining security groups where it had none, or losing all of them.
  "aws:lb/loadBalancer:LoadBalancer": (before, after, changed) => {
    if (after.loadBalancerType !== "network") return [];
    const keys: string[] = [];
    if (changed.has("subnets") && count(after.subnets) <= count(before.subnets)) keys.push("subnets");
    const [had, has] = [count(before.securityGroups) > 0, count(after.securityGroups) > 0];
    if (changed.has("securityGroups") && had !== has) keys.push("securityGroups");
    return keys;
  },
};

/** The top-level inputs of a resource of `type` whose change, from `before` to `after`, replaces it. */
export function replacedBy(type: string, before: unknown, after: unknown, changedPaths: readonly string[]): string[] {
  const rule = REPLACE_WHEN[type];
  if (!rule) return [];
  const changed = new Set(changedPaths.map(topLevel));
  return rule((before ?? {}) as Inputs, (after ?? {}) as Inputs, changed);
}

const topLevel = (path: string): string => path.split(/[.[]/)[0];

/** Kubernetes objects are replaced when their identity changes. */
const KUBERNETES_IDENTITY = ["metadata.name", "metadata.namespace", "apiVersion", "kind"];

const isKubernetesObject = (type: string) => type.startsWith("kubernetes:");

/** True when the table (or the Kubernetes identity rule) says which changes replace a resource of `type`. */
export const isReplaceClassified = (type: string): boolean => type in REPLACE_ON_CHANGE || isKubernetesObject(type);

/** True when a change to `path` (dotted) of a resource of `type` replaces it. */
export function forcesReplacement(type: string, path: string): boolean {
  const top = topLevel(path);
  if (isKubernetesObject(type)) return KUBERNETES_IDENTITY.some((p) => path === p || path.startsWith(`${p}.`));
  const keys = REPLACE_ON_CHANGE[type] ?? [];
  return keys.includes("*") || keys.includes(top);
}
