/**
 * What a plan costs a month in AWS at on-demand list prices, for the README's figures (tests/docs.test.ts
 * recomputes them from the golden plans). Only what runs by the hour or the gigabyte-month is counted;
 * traffic (NAT data processing, load balancer capacity units, cross-zone transfer) depends on use and is left
 * out, as the README says.
 */
import type { PlannedResource } from "../cli/plan/run";

const HOURS_PER_MONTH = 730;

/**
 * US East (N. Virginia and Ohio, the examples' regions, price these alike), Linux on-demand, USD, from
 * aws.amazon.com/ec2/pricing/on-demand, /vpc/pricing (NAT gateway, public IPv4 address),
 * /elasticloadbalancing/pricing, /ebs/pricing, /route53/pricing, /cloudwatch/pricing and /kms/pricing.
 */
export const PRICES = {
  instanceHour: { "t3.medium": 0.0416, "t3.large": 0.0832, "m6i.large": 0.096, "m6i.xlarge": 0.192 } as Record<
    string,
    number
  >,
  natGatewayHour: 0.045,
  networkLoadBalancerHour: 0.0225,
  publicIpv4Hour: 0.005,
  gp3GibMonth: 0.08,
  hostedZoneMonth: 0.5,
  alarmMonth: 0.1,
  kmsKeyMonth: 1,
};

export interface CostItem {
  item: string;
  count: number;
  monthly: number;
}

type Inputs = Record<string, unknown>;
const inputs = (r: PlannedResource) => (r.inputs ?? {}) as Inputs;
const ofType = (resources: PlannedResource[], type: string) => resources.filter((r) => r.type === type);

/** The plan's billable items; instances at each group's minimum size. */
export function monthlyCost(resources: PlannedResource[]): CostItem[] {
  const templates = new Map(
    ofType(resources, "aws:ec2/launchTemplate:LaunchTemplate").map((t) => [
      t.name.replace(/-template$/, ""),
      inputs(t),
    ]),
  );
  const instances = new Map<string, number>();
  let gib = 0;
  for (const group of ofType(resources, "aws:autoscaling/group:Group")) {
    const template = templates.get(group.name.replace(/-group$/, ""))!;
    const size = inputs(group).minSize as number;
    const type = template.instanceType as string;
    instances.set(type, (instances.get(type) ?? 0) + size);
    const volumes = template.blockDeviceMappings as { ebs: { volumeSize: number } }[];
    gib += size * volumes.reduce((sum, v) => sum + v.ebs.volumeSize, 0);
  }
  const loadBalancers = ofType(resources, "aws:lb/loadBalancer:LoadBalancer");
  // An internet-facing load balancer holds a public IPv4 address in each of its zones; a NAT gateway, its EIP.
  const publicAddresses =
    ofType(resources, "aws:ec2/eip:Eip").length +
    loadBalancers
      .filter((lb) => !inputs(lb).internal)
      .reduce((n, lb) => n + (inputs(lb).subnets as unknown[]).length, 0);
  const hourly = (count: number, price: number) => count * price * HOURS_PER_MONTH;
  const items: CostItem[] = [
    ...[...instances]
      .filter(([, count]) => count > 0)
      .map(([type, count]) => {
        if (!(type in PRICES.instanceHour)) throw new Error(`no recorded price for ${type}`);
        return { item: `${type} instances`, count, monthly: hourly(count, PRICES.instanceHour[type]) };
      }),
    { item: "gp3 root volumes (GiB)", count: gib, monthly: gib * PRICES.gp3GibMonth },
    {
      item: "NAT gateways",
      count: ofType(resources, "aws:ec2/natGateway:NatGateway").length,
      monthly: hourly(ofType(resources, "aws:ec2/natGateway:NatGateway").length, PRICES.natGatewayHour),
    },
    {
      item: "network load balancers",
      count: loadBalancers.length,
      monthly: hourly(loadBalancers.length, PRICES.networkLoadBalancerHour),
    },
    { item: "public IPv4 addresses", count: publicAddresses, monthly: hourly(publicAddresses, PRICES.publicIpv4Hour) },
    {
      item: "Route 53 hosted zones",
      count: ofType(resources, "aws:route53/zone:Zone").length,
      monthly: ofType(resources, "aws:route53/zone:Zone").length * PRICES.hostedZoneMonth,
    },
    {
      item: "CloudWatch alarms",
      count: ofType(resources, "aws:cloudwatch/metricAlarm:MetricAlarm").length,
      monthly: ofType(resources, "aws:cloudwatch/metricAlarm:MetricAlarm").length * PRICES.alarmMonth,
    },
    {
      item: "KMS keys",
      count: ofType(resources, "aws:kms/key:Key").length,
      monthly: ofType(resources, "aws:kms/key:Key").length * PRICES.kmsKeyMonth,
    },
  ];
  return items.filter((i) => i.count > 0);
}

export const dollars = (amount: number) => `$${amount.toFixed(2)}`;
