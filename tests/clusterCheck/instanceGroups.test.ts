// `npm run validate-cluster -- instancegroups` (cli/clusterCheck/command.ts) against the AWS fake's Auto Scaling,
// called as the stack's AWS config says: the cluster's groups as kOps's get instancegroups lists them, page
// after page; without credentials, or refused, it says why and exits 1.
import { expect } from "chai";
import { mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { parse, stringify } from "yaml";
import { INSTANCE_GROUP_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import { PROJECT_DIR } from "../../cli/plan/examples";
import { main } from "../../cli/clusterCheck/command";
import { AwsFake, GroupSettings, sdkEnvironment, startAws } from "../standins/aws";

const CLUSTER = "dev.k8s.local";
const DEPLOYER = "AKIADEPLOYER";

/** The dev stack's file with `aws:` keys added, in a directory of its own. */
function stackFile(aws: Record<string, unknown>): string {
  const stack = parse(readFileSync(join(PROJECT_DIR, "Pulumi.dev.yaml"), "utf8"));
  Object.assign(stack.config, aws);
  const file = join(mkdtempSync(join(tmpdir(), "validate-")), "Pulumi.dev.yaml");
  writeFileSync(file, stringify(stack));
  return file;
}

function group(
  fake: AwsFake,
  name: string,
  settings: Omit<GroupSettings, "tags" | "launchTemplate"> & { role: "control-plane" | "node"; version: string },
  cluster = CLUSTER,
): void {
  const asg = `${name}.${cluster}`;
  fake.groups.set(asg, {
    hooks: [],
    refreshes: [],
    settings: {
      ...settings,
      launchTemplate: { id: `lt-${name}`, name: asg, version: settings.version },
      tags: { KubernetesCluster: cluster, [INSTANCE_GROUP_TAG]: name, [ROLE_TAGS[settings.role]]: "1" },
    },
  });
}

let next = 0;
function instance(fake: AwsFake, groupName: string, zone: string, templateVersion?: string) {
  const id = `i-0b${String(++next).padStart(15, "0")}`;
  fake.launch(
    { id, privateIp: `10.0.1.${next}`, zone, instanceType: "t3.large", mac: "0e:00:00:00:00:01", tags: {} },
    { name: groupName, hooks: [] },
  );
  Object.assign(fake.instances.get(id)!, { templateVersion });
}

async function run(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe("npm run validate-cluster -- instancegroups", function () {
  this.timeout(60_000);
  let aws: AwsFake & { close(): Promise<void> };
  let restore: () => void;

  beforeEach(async () => {
    aws = await startAws({ region: "us-east-1", autoScalingKey: DEPLOYER });
    restore = sdkEnvironment(aws, { deployer: DEPLOYER, stranger: "AKIASTRANGER" });
    group(aws, "control-plane-us-east-1a", {
      role: "control-plane",
      minSize: 1,
      maxSize: 2,
      desiredCapacity: 1,
      zones: ["us-east-1a"],
      version: "3",
    });
    instance(aws, `control-plane-us-east-1a.${CLUSTER}`, "us-east-1a");
    const zones = ["us-east-1a", "us-east-1b", "us-east-1c"];
    group(aws, "nodes", { role: "node", minSize: 2, maxSize: 4, desiredCapacity: 2, zones, version: "5" });
    instance(aws, `nodes.${CLUSTER}`, "us-east-1b");
    // Launched from the previous version: an instance refresh has yet to replace it.
    instance(aws, `nodes.${CLUSTER}`, "us-east-1c", "4");
    aws.instances.get([...aws.instances.keys()].pop()!)!.lifecycleState = "Pending:Wait";
    // Another cluster's group in the same account.
    group(
      aws,
      "nodes",
      { role: "node", minSize: 9, maxSize: 9, desiredCapacity: 9, zones, version: "1" },
      "prod.k8s.local",
    );
  });
  afterEach(async () => {
    restore?.();
    await aws?.close();
  });

  it("lists the cluster's groups in the stack's order, with Auto Scaling's bounds, zones, template version and instances", async () => {
    const r = await run("instancegroups", "--config-file", stackFile({ "aws:profile": "deployer" }));
    expect(r.code, r.err).to.equal(0);
    expect(r.out).to.equal(
      [
        "INSTANCE GROUPS",
        "NAME                      ROLE           MACHINETYPE  MIN  MAX  ZONES                             TEMPLATE VERSION  IN SERVICE  NEED UPDATE  NOTE",
        "control-plane-us-east-1a  control-plane  t3.medium    1    2    us-east-1a                        3                 1/1         0",
        "nodes                     node           t3.large     2    4    us-east-1a,us-east-1b,us-east-1c  5                 1/2         1",
        "",
      ].join("\n"),
    );
    // Asked as the stack's profile, in the stack's region, for this cluster's groups only.
    const calls = aws.calls.filter((c) => c.action === "autoscaling:DescribeAutoScalingGroups");
    expect(calls.map((c) => [c.caller, c.region, c.refused])).to.deep.equal([[DEPLOYER, "us-east-1", undefined]]);
    expect(calls[0].params).to.include({
      "Filters.member.1.Name": "tag:KubernetesCluster",
      "Filters.member.1.Values.member.1": CLUSTER,
    });
  });

  it("follows every page, and lists last a group the stack no longer declares", async () => {
    for (let i = 0; i < 60; i++)
      group(aws, `old-${String(i).padStart(2, "0")}`, {
        role: "node",
        minSize: 0,
        maxSize: 1,
        desiredCapacity: 0,
        zones: ["us-east-1a"],
        version: "1",
      });
    const r = await run("instancegroups", "--config-file", stackFile({ "aws:profile": "deployer" }));
    expect(r.code, r.err).to.equal(0);
    const names = r.out
      .trim()
      .split("\n")
      .slice(2)
      .map((l) => l.split(/\s+/)[0]);
    expect(names.slice(0, 2)).to.deep.equal(["control-plane-us-east-1a", "nodes"]);
    expect(names.length).to.equal(62);
    expect(r.out).to.match(/\nold-59 +node +- +0 +1 +us-east-1a +1 +0\/0 +0 +not in the stack config\n/);
    expect(aws.calls.filter((c) => c.action === "autoscaling:DescribeAutoScalingGroups").length).to.equal(2);
  });

  it("says why the groups were not listed, and exits 1: no credentials, a refused identity, an aws: key it does not honour", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { "aws:profile": "nobody" },
        /not listed: no AWS credentials with the stack's AWS config \(region us-east-1, profile nobody\)/,
      ],
      [{ "aws:profile": "stranger" }, /not listed: .*profile stranger\): InvalidClientTokenId/],
      [{ "aws:accessKey": "AKIA" }, /not listed: aws:accessKey: Forbidden: /],
    ];
    for (const [config, message] of cases) {
      const r = await run("instancegroups", "--config-file", stackFile(config));
      expect(r.code, JSON.stringify(config)).to.equal(1);
      expect(r.out, r.out).to.match(message);
    }
  });
});
