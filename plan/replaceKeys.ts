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
  "aws:iam/rolePolicy:RolePolicy": ["name", "role"],
  "aws:iam/instanceProfile:InstanceProfile": ["name", "path"],
  "aws:ec2/launchTemplate:LaunchTemplate": ["name"],
  "aws:autoscaling/group:Group": ["name"],
  "aws:ssm/parameter:Parameter": ["name"],
  // A member's etcd volume: replacing it empties the member (docs/operations.md).
  "aws:ebs/volume:Volume": ["availabilityZone", "encrypted", "kmsKeyId", "snapshotId"],
  "aws:s3/bucket:Bucket": ["bucket", "bucketPrefix"],
  "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": ["bucket"],
  "aws:s3/bucketOwnershipControls:BucketOwnershipControls": ["bucket"],
  "aws:s3/bucketVersioning:BucketVersioning": ["bucket"],
  "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": ["bucket"],
  "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": ["bucket"],
  "aws:route53/zone:Zone": ["name", "delegationSetId"],
  "aws:route53/record:Record": ["zoneId", "name", "type"],
  "random:index/randomId:RandomId": ["*"],
  "tls:index/privateKey:PrivateKey": ["*"],
  "tls:index/selfSignedCert:SelfSignedCert": ["*"],
  "tls:index/locallySignedCert:LocallySignedCert": ["*"],
  "tls:index/certRequest:CertRequest": ["*"],
  "random:index/randomString:RandomString": ["*"],
  "random:index/randomPassword:RandomPassword": ["*"],
  // The provider is replaced only when its clusterIdentifier changes (the program always sets one).
  "pulumi:providers:kubernetes": ["clusterIdentifier"],
  // ApiReady: a dynamic provider without `diff` never asks for a replacement.
  "pulumi-nodejs:dynamic:Resource": [],
};

/** Kubernetes objects are replaced when their identity changes. */
const KUBERNETES_IDENTITY = ["metadata.name", "metadata.namespace", "apiVersion", "kind"];

const isKubernetesObject = (type: string) => type.startsWith("kubernetes:");

/** True when the table (or the Kubernetes identity rule) says which changes replace a resource of `type`. */
export const isReplaceClassified = (type: string): boolean => type in REPLACE_ON_CHANGE || isKubernetesObject(type);

/** True when a change to `path` (dotted) of a resource of `type` replaces it. */
export function forcesReplacement(type: string, path: string): boolean {
  const top = path.split(/[.[]/)[0];
  if (isKubernetesObject(type)) return KUBERNETES_IDENTITY.some((p) => path === p || path.startsWith(`${p}.`));
  const keys = REPLACE_ON_CHANGE[type] ?? [];
  return keys.includes("*") || keys.includes(top);
}
