/**
 * ENI limits of common EC2 instance types (maximum network interfaces, IPv4 addresses per interface), and
 * kOps's max-pods rule for ENI mode. Nodes compute the same rule at boot from `ec2:DescribeInstanceTypes`;
 * this table only serves the offline subnet-capacity check, which assumes 110 pods for a type it lacks.
 */
const ENI_LIMITS: Record<string, [enis: number, ipv4PerEni: number]> = {
  "t3.micro": [2, 2],
  "t3.small": [3, 4],
  "t3.medium": [3, 6],
  "t3.large": [3, 12],
  "t3.xlarge": [4, 15],
  "t3.2xlarge": [4, 15],
  "t3a.medium": [3, 6],
  "t3a.large": [3, 12],
  "t3a.xlarge": [4, 15],
  "t3a.2xlarge": [4, 15],
  "t4g.medium": [3, 6],
  "t4g.large": [3, 12],
  "t4g.xlarge": [4, 15],
  "t4g.2xlarge": [4, 15],
  "m5.large": [3, 10],
  "m5.xlarge": [4, 15],
  "m5.2xlarge": [4, 15],
  "m5.4xlarge": [8, 30],
  "m5.8xlarge": [8, 30],
  "m6i.large": [3, 10],
  "m6i.xlarge": [4, 15],
  "m6i.2xlarge": [4, 15],
  "m6i.4xlarge": [8, 30],
  "m6i.8xlarge": [8, 30],
  "m7i.large": [3, 10],
  "m7i.xlarge": [4, 15],
  "m7i.2xlarge": [4, 15],
  "m7i.4xlarge": [8, 30],
  "m7i.8xlarge": [8, 30],
  "m6g.large": [3, 10],
  "m6g.xlarge": [4, 15],
  "m6g.2xlarge": [4, 15],
  "m6g.4xlarge": [8, 30],
  "m7g.large": [3, 10],
  "m7g.xlarge": [4, 15],
  "m7g.2xlarge": [4, 15],
  "m7g.4xlarge": [8, 30],
  "c5.large": [3, 10],
  "c5.xlarge": [4, 15],
  "c5.2xlarge": [4, 15],
  "c5.4xlarge": [8, 30],
  "c6i.large": [3, 10],
  "c6i.xlarge": [4, 15],
  "c6i.2xlarge": [4, 15],
  "c6i.4xlarge": [8, 30],
  "r5.large": [3, 10],
  "r5.xlarge": [4, 15],
  "r5.2xlarge": [4, 15],
  "r5.4xlarge": [8, 30],
  "r6i.large": [3, 10],
  "r6i.xlarge": [4, 15],
  "r6i.2xlarge": [4, 15],
  "r6i.4xlarge": [8, 30],
};

/** Max pods when nothing about the instance type is known: the kubelet's default. */
export const DEFAULT_MAX_PODS = 110;

/** kOps's rule: `min(110, ENIs × (IPv4 per ENI − 1) + 2)`. */
export function maxPodsForEni(enis: number, ipv4PerEni: number): number {
  return Math.min(DEFAULT_MAX_PODS, enis * (ipv4PerEni - 1) + 2);
}

/** Max pods of an instance type in ENI mode, or 110 when the type is not in the table. */
export function eniMaxPods(instanceType: string): number {
  const limits = ENI_LIMITS[instanceType];
  return limits ? maxPodsForEni(...limits) : DEFAULT_MAX_PODS;
}

/** Graviton families (`m7g`, `t4g`, `c7gn`, ...) run arm64 images. */
export function architectureOf(instanceType: string): "arm64" | "x86_64" {
  return /^[a-z]+\d+g[a-z]*\./.test(instanceType) ? "arm64" : "x86_64";
}
