// Names AWS holds unique per account (or per region): two clusters whose names differ only where AWS's
// alphabet cannot tell them apart must plan different ones, or one cluster's nodes would use the other's.
import { expect } from "chai";
import { awsName } from "../../components/naming";
import { inputs, planWith } from "../planHelpers";

/** Resource types whose name is unique in the account or region, and the input that holds it. */
const UNIQUE_NAMES: Record<string, string> = {
  "aws:s3/bucket:Bucket": "bucket",
  "aws:kms/alias:Alias": "name",
  "aws:sqs/queue:Queue": "name",
  "aws:lb/loadBalancer:LoadBalancer": "name",
  "aws:lb/targetGroup:TargetGroup": "name",
  "aws:cloudwatch/eventRule:EventRule": "name",
  "aws:cloudwatch/metricAlarm:MetricAlarm": "name",
  "aws:iam/role:Role": "name",
  "aws:iam/policy:Policy": "name",
  "aws:iam/instanceProfile:InstanceProfile": "name",
  "aws:ec2/launchTemplate:LaunchTemplate": "name",
  "aws:autoscaling/group:Group": "name",
  "aws:ssm/document:Document": "name",
  "aws:ssm/parameter:Parameter": "name",
};

async function uniqueNames(clusterName: string, edits: Record<string, string> = {}): Promise<Map<string, string>> {
  const plan = await planWith({ clusterName, ...edits });
  const names = new Map<string, string>();
  for (const r of plan.resources) {
    const input = UNIQUE_NAMES[r.type];
    const name = input && inputs(r)[input];
    if (typeof name === "string") names.set(`${r.type} ${name}`, r.name);
  }
  return names;
}

describe("AWS names derived from the cluster name", () => {
  it("names that differ only in '.' and '-' plan different buckets, queues, aliases, load balancers and the rest", async () => {
    for (const edits of [{}, { "addons.applyFrom": "controlPlane" }] as Record<string, string>[]) {
      const dotted = await uniqueNames("dup.example.com", edits);
      const dashed = await uniqueNames("dup-example.com", edits);
      expect(dotted.size).to.be.greaterThan(10);
      const shared = [...dotted.keys()].filter((name) => dashed.has(name));
      expect(shared, JSON.stringify(edits)).to.deep.equal([]);
    }
  });

  it("keeps a name AWS takes as written, and hashes one it had to change or shorten", () => {
    expect(awsName("nodes-dev", 32)).to.equal("nodes-dev");
    expect(awsName("dup.example.com", 32)).to.match(/^dup-example-com-[0-9a-f]{6}$/);
    expect(awsName("dup-example.com", 32)).to.not.equal(awsName("dup.example.com", 32));
    const long = awsName("x".repeat(40), 32);
    expect(long).to.have.length(32);
    expect(long).to.not.equal(awsName(`${"x".repeat(39)}y`, 32));
  });
});
