/**
 * Which resource types of this program take AWS tags. Every type the program declares is in one of the
 * two tables (a test plans every example to check it), so a new type cannot slip past the tag policy.
 */

/** Types that take tags: each resource must carry `KubernetesCluster`. */
export const TAGGABLE: ReadonlySet<string> = new Set([
  "aws:s3/bucketObjectv2:BucketObjectv2",
  "aws:ec2/vpc:Vpc",
  "aws:ec2/subnet:Subnet",
  "aws:ec2/internetGateway:InternetGateway",
  "aws:ec2/eip:Eip",
  "aws:ec2/natGateway:NatGateway",
  "aws:ec2/routeTable:RouteTable",
  "aws:ec2/securityGroup:SecurityGroup",
  "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
  "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
  "aws:lb/loadBalancer:LoadBalancer",
  "aws:lb/targetGroup:TargetGroup",
  "aws:lb/listener:Listener",
  "aws:iam/role:Role",
  "aws:iam/instanceProfile:InstanceProfile",
  "aws:iam/policy:Policy",
  "aws:ec2/launchTemplate:LaunchTemplate",
  "aws:autoscaling/group:Group",
  "aws:ssm/parameter:Parameter",
  "aws:kms/key:Key",
  "aws:ssm/document:Document",
  "aws:ssm/association:Association",
  "aws:s3/bucket:Bucket",
  "aws:route53/zone:Zone",
  "aws:cloudwatch/metricAlarm:MetricAlarm",
  "aws:sqs/queue:Queue",
  "aws:cloudwatch/eventRule:EventRule",
]);

/** Types that take no tags, and why. */
export const UNTAGGED: Readonly<Record<string, string>> = {
  "aws:ec2/route:Route": "a route is part of its route table and takes no tags",
  "aws:ec2/routeTableAssociation:RouteTableAssociation": "an association takes no tags",
  "aws:iam/rolePolicyAttachment:RolePolicyAttachment": "an attachment takes no tags; its policy and role carry them",
  "aws:kms/alias:Alias": "a name of its key, which carries the tags",
  "random:index/randomId:RandomId": "kept in the stack's state, nothing in AWS",
  "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": "a setting of its bucket, which carries the tags",
  "aws:s3/bucketOwnershipControls:BucketOwnershipControls": "a setting of its bucket, which carries the tags",
  "aws:s3/bucketVersioning:BucketVersioning": "a setting of its bucket, which carries the tags",
  "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration":
    "a setting of its bucket, which carries the tags",
  "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": "a setting of its bucket, which carries the tags",
  "aws:s3/bucketPolicy:BucketPolicy": "a setting of its bucket, which carries the tags",
  "aws:route53/record:Record": "a DNS record takes no tags; its hosted zone carries them",
  "aws:autoscaling/lifecycleHook:LifecycleHook": "a setting of its Auto Scaling group, which carries the tags",
  "aws:cloudwatch/eventTarget:EventTarget": "a target of its EventBridge rule, which carries the tags",
  "pulumi:providers:kubernetes": "a provider, nothing in AWS",
};

/** Kubernetes objects live in the cluster and carry labels, not AWS tags. */
const isKubernetesObject = (type: string) => type.startsWith("kubernetes:");

export const isTagClassified = (type: string): boolean =>
  TAGGABLE.has(type) || type in UNTAGGED || isKubernetesObject(type);
