/**
 * AWS quotas a config can exceed, and how much of each the program takes itself. The program's shares are
 * checked against what it declares (tests/config/quotas.test.ts), so they cannot drift from the components.
 */

/** Tags per resource: AWS's limit for EC2, IAM, SSM, S3, Route 53, ELB and CloudWatch alike. */
export const TAGS_PER_RESOURCE = 50;

/**
 * The most tags the program puts on one resource beside the cloud labels: `KubernetesCluster`,
 * `kubernetes.io/cluster/<name>` and `Name` everywhere, and on subnets their role, load balancer role(s)
 * and (private subnets) Cilium's subnet filter tag.
 */
export const PROGRAM_TAGS_PER_RESOURCE = 6;

/** Inbound rules per security group: AWS's default quota (IPv4 rules; it can be raised on request). */
export const INBOUND_RULES_PER_SECURITY_GROUP = 60;

/**
 * Inbound rules of the API load balancer's group beside the one per `api.access` CIDR: HTTPS from the
 * control plane and from the nodes, and path-MTU discovery.
 */
export const API_LB_OWN_INBOUND_RULES = 3;
