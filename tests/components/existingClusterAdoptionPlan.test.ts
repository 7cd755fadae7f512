// ExistingClusterAdoption in the plan: once per stack, before every control-plane group and no worker group,
// with the snapshot script for this stack's bucket; and its provider as the engine runs it: serialized,
// loaded on its own, calling AWS through the SDK (here a local endpoint speaking SSM's and EC2's protocols).
import { expect } from "chai";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { createServer, IncomingMessage, Server } from "http";
import { AddressInfo } from "net";
import { dirname, join } from "path";
import { renderAdoptionSnapshotScript } from "../../components/controlPlane/adoptionSnapshotScript";
import type { adoptionProvider } from "../../components/controlPlane/existingClusterAdoption";
import { MOCK_ACCOUNT } from "../../plan/mocks";
import { forcesReplacement } from "../../plan/replaceKeys";
import type { Plan, PlannedResource } from "../../plan/run";
import { inputs, ofType, planWith } from "../planHelpers";

const adoptions = (plan: Plan) => plan.resources.filter((r) => r.name === "existing-cluster-adoption");
const dependsOn = (r: PlannedResource, other: PlannedResource) => (r.dependencies ?? []).includes(other.urn);

describe("existing-cluster adoption in the plan", () => {
  it("exists once per stack; every control-plane group waits for it, no worker group does", async () => {
    const ha = await planWith({ "controlPlane.count": "3" });
    expect(adoptions(ha)).to.have.length(1);
    const [adoption] = adoptions(ha);
    expect(adoption.type).to.equal("pulumi-nodejs:dynamic:Resource");
    const groups = ofType(ha, "aws:autoscaling/group:Group");
    const controlPlane = groups.filter((g) => g.name.startsWith("control-plane-"));
    expect(controlPlane.map((g) => g.name)).to.have.length(3);
    for (const g of controlPlane) expect(dependsOn(g, adoption), g.name).to.equal(true);
    for (const g of groups.filter((g) => !g.name.startsWith("control-plane-")))
      expect(dependsOn(g, adoption), g.name).to.equal(false);
  });

  it("runs as late as it can: after all the control-plane groups wait for but itself, and their templates", async () => {
    const plan = await planWith({ "controlPlane.count": "3" });
    const [adoption] = adoptions(plan);
    const controlPlane = ofType(plan, "aws:autoscaling/group:Group").filter((g) => g.name.startsWith("control-plane-"));
    // Everything a control-plane group waits for, itself and the previous groups aside (each waits for it in
    // turn, and the next follows its member wait), the launch templates included.
    const waitedFor = new Set(controlPlane.flatMap((g) => g.dependencies ?? []));
    waitedFor.delete(adoption.urn);
    const groupComponents = new Set(
      ofType(plan, "cilium-cluster:nodes:NodeLaunchTemplate")
        .filter((c) => c.name.startsWith("control-plane-"))
        .map((c) => c.urn),
    );
    for (const r of plan.resources.filter((r) => r.parent && groupComponents.has(r.parent))) waitedFor.delete(r.urn);
    for (const urn of adoption.dependencies ?? []) waitedFor.delete(urn);
    // Left: what the groups take as inputs (their subnets, the API's target groups) and the API's load balancer,
    // whose name a member wait reads: the network's, which the adoption's dependencies wait for already.
    const left = plan.resources.filter((r) => waitedFor.has(r.urn)).map((r) => r.type);
    expect([...new Set(left)].sort()).to.deep.equal([
      "aws:ec2/subnet:Subnet",
      "aws:lb/loadBalancer:LoadBalancer",
      "aws:lb/targetGroup:TargetGroup",
    ]);
    const templates = ofType(plan, "aws:ec2/launchTemplate:LaunchTemplate");
    for (const t of templates.filter((t) => t.name.startsWith("control-plane-")))
      expect(dependsOn(adoption, t), t.name).to.equal(true);
    for (const t of templates.filter((t) => !t.name.startsWith("control-plane-")))
      expect(dependsOn(adoption, t), t.name).to.equal(false);
    expect(inputs(adoption).accountId).to.equal(MOCK_ACCOUNT);
  });

  it("runs after the bucket and the control-plane role it uploads with, with the script for that bucket", async () => {
    const plan = await planWith();
    const [adoption] = adoptions(plan);
    // The control-plane role's policy (Run Command's agent, the upload) and the bucket with its policy.
    const resource = (type: string, name: string) => plan.resources.find((r) => r.type === type && r.name === name)!;
    for (const [type, name] of [
      ["aws:iam/rolePolicy:RolePolicy", "control-plane-policy"],
      ["aws:s3/bucketPolicy:BucketPolicy", "control-plane-state-backups"],
      ["aws:s3/bucket:Bucket", "control-plane-state-backups"],
    ])
      expect(dependsOn(adoption, resource(type, name)), name).to.equal(true);
    expect(dependsOn(adoption, resource("aws:iam/rolePolicy:RolePolicy", "nodes-policy"))).to.equal(false);
    const bucket = ofType(plan, "aws:s3/bucket:Bucket").find((b) => b.name === "control-plane-state-backups")!;
    const args = inputs(adoption);
    expect(args.script).to.equal(
      renderAdoptionSnapshotScript({ region: "us-east-1", backupBucket: inputs(bucket).bucket as string }),
    );
    expect(args).to.include({ region: "us-east-1", clusterName: "dev.k8s.local", managedTimeoutSeconds: 900 });
    expect(args.initRecord).to.match(/^\/cilium-cluster\/dev\.k8s\.local\/control-plane\/initialized-/);
  });
});

/**
 * SSM (JSON 1.1: X-Amz-Target), EC2 and STS (query protocol, XML) as far as a no-op adoption asks them; it
 * notes each call and the region it was signed for (SigV4's credential scope).
 */
function awsEndpoint(
  record: string | undefined,
  account = MOCK_ACCOUNT,
  running: string[] = [],
): Promise<{ server: Server; url: string; targets: string[]; regions: Set<string> }> {
  const targets: string[] = [];
  const regions = new Set<string>();
  const body = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = "";
      req.on("data", (d) => (text += d));
      req.on("end", () => resolve(text));
    });
  const server = createServer(async (req, res) => {
    const text = await body(req);
    const target = String(req.headers["x-amz-target"] ?? new URLSearchParams(text).get("Action"));
    targets.push(target);
    regions.add(/Credential=[^/]+\/\d+\/([^/]+)\//.exec(String(req.headers.authorization))?.[1] ?? "none");
    if (target === "GetCallerIdentity")
      res
        .writeHead(200, { "content-type": "text/xml" })
        .end(
          '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>' +
            `<Arn>arn:aws:iam::${account}:user/deployer</Arn><UserId>AIDAEXAMPLE</UserId><Account>${account}</Account>` +
            "</GetCallerIdentityResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>" +
            "</GetCallerIdentityResponse>",
        );
    else if (target === "AmazonSSM.GetParameter" && record === undefined)
      res
        .writeHead(400, { "content-type": "application/x-amz-json-1.1" })
        .end(JSON.stringify({ __type: "ParameterNotFound", message: "" }));
    else if (target === "AmazonSSM.GetParameter")
      res
        .writeHead(200, { "content-type": "application/x-amz-json-1.1" })
        .end(JSON.stringify({ Parameter: { Name: JSON.parse(text).Name, Type: "String", Value: record } }));
    else if (target === "DescribeInstances")
      res
        .writeHead(200, { "content-type": "text/xml" })
        .end(
          '<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId>' +
            "<reservationSet>" +
            running
              .map(
                (id) =>
                  `<item><reservationId>r-1</reservationId><instancesSet><item><instanceId>${id}</instanceId>` +
                  "<instanceState><code>16</code><name>running</name></instanceState></item></instancesSet></item>",
              )
              .join("") +
            "</reservationSet></DescribeInstancesResponse>",
        );
    // No member volume anywhere (a cluster from before them).
    else if (target === "DescribeVolumes")
      res
        .writeHead(200, { "content-type": "text/xml" })
        .end(
          '<DescribeVolumesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId>' +
            "<volumeSet/></DescribeVolumesResponse>",
        );
    else res.writeHead(400).end();
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets, regions }),
    ),
  );
}

describe("existing-cluster adoption as the engine runs it", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (key.startsWith("AWS_")) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it("serialized, loaded in a fresh module, it reads the record and the instances through the SDK", async () => {
    const plan = await planWith();
    const [adoption] = adoptions(plan);
    // Inside the project, as the engine's dynamic-provider host loads it: the SDK resolves from node_modules.
    const cache = join(__dirname, "../../node_modules/.cache");
    mkdirSync(cache, { recursive: true });
    const file = join(mkdtempSync(join(cache, "adoption-")), "provider.js");
    writeFileSync(file, inputs(adoption).__provider as string);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const provider = (require(file) as { handler(): typeof adoptionProvider }).handler();
    rmSync(dirname(file), { recursive: true, force: true });
    const args = { ...inputs(adoption), script: "exit 1", pollSeconds: 0 };
    delete args.__provider;
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "secret",
      // The SDK's notice for machines on a Node.js older than the one it will require (package.json's engines).
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      // Another region in the environment: the provider uses the stack's.
      AWS_REGION: "eu-west-1",
    });

    const missing = await awsEndpoint(undefined);
    process.env.AWS_ENDPOINT_URL = missing.url;
    const created = await provider.create(args);
    missing.server.close();
    expect(created.outs.adoption).to.equal("nothing to adopt: no control-plane instance runs: a new cluster");
    expect(created.id).to.equal(args.initRecord);
    expect(missing.targets).to.deep.equal(["GetCallerIdentity", "AmazonSSM.GetParameter", "DescribeInstances"]);
    expect([...missing.regions]).to.deep.equal(["us-east-1"]);

    const recorded = await awsEndpoint("i-0aaa 2026-01-01T00:00:00Z");
    process.env.AWS_ENDPOINT_URL = recorded.url;
    const again = await provider.create(args);
    recorded.server.close();
    expect(again.outs.adoption).to.equal("nothing to adopt: the init record exists (i-0aaa 2026-01-01T00:00:00Z)");
    expect(recorded.targets).to.deep.equal(["GetCallerIdentity", "AmazonSSM.GetParameter"]);
    // A stack created with its record: later updates do nothing, whatever changed, asking AWS nothing; nor
    // does the plan's table call any change a replacement.
    const quiet = await awsEndpoint(undefined);
    process.env.AWS_ENDPOINT_URL = quiet.url;
    for (const key of Object.keys(args)) {
      const olds = { ...args, adoption: again.outs.adoption };
      expect(await provider.diff!("id", olds, { ...args, [key]: "other" }), key).to.deep.equal({ changes: false });
      expect(forcesReplacement("pulumi-nodejs:dynamic:Resource", key), key).to.equal(false);
    }
    quiet.server.close();
    expect(quiet.targets).to.deep.equal([]);

    // An adopted stack asks: no old control-plane instance runs (here none at all), so no change.
    const adopted = await awsEndpoint("adopted 2026-11-20T00:00:00Z");
    process.env.AWS_ENDPOINT_URL = adopted.url;
    const olds = { ...args, adoption: "adopted the running cluster from i-0aaa: uploaded etcd snapshot etcd/x.db" };
    expect(await provider.diff!("id", olds, args)).to.deep.equal({ changes: false });
    adopted.server.close();
    expect(adopted.targets).to.deep.equal(["GetCallerIdentity", "AmazonSSM.GetParameter", "DescribeInstances"]);

    // ... and while an old control-plane instance runs (no member volume attached), it is a change: the
    // update snapshots again before the groups change.
    const stale = await awsEndpoint("adopted 2026-11-20T00:00:00Z", MOCK_ACCOUNT, ["i-0old"]);
    process.env.AWS_ENDPOINT_URL = stale.url;
    expect(await provider.diff!("id", olds, args)).to.deep.equal({ changes: true });
    stale.server.close();
    expect(stale.targets).to.deep.equal([
      "GetCallerIdentity",
      "AmazonSSM.GetParameter",
      "DescribeInstances",
      "DescribeVolumes",
    ]);

    // Credentials for another account: it stops, saying so, before reading anything.
    const other = await awsEndpoint(undefined, "210987654321");
    process.env.AWS_ENDPOINT_URL = other.url;
    const refused = await provider.create(args).catch((e: Error) => e.message);
    other.server.close();
    expect(refused).to.contain(`are for account 210987654321, the stack's account is ${MOCK_ACCOUNT}`);
    expect(other.targets).to.deep.equal(["GetCallerIdentity"]);
  });
});
