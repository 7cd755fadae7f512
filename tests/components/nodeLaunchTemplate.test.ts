// NodeLaunchTemplate and ClusterSecrets under the mock runtime, and the rendered user data.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { diffPlans } from "../../cli/plan/diff";
import { examples, GOLDEN_DIR } from "../../cli/plan/examples";
import type { Plan } from "../../cli/plan/run";
import { USER_DATA_BUDGET_BYTES, USER_DATA_LIMIT_BYTES } from "../../components/nodes/userDataBudget";
import { decodeUserData } from "../../components/nodes/userDataEncoding";
import { filesOf, kubeadmConfigsOf } from "../../components/nodes/userData";
import { BOOTSTRAP_SCRIPT, BOOTSTRAP_SERVICE } from "../../components/nodes/systemdUnits";
import { LAUNCH_HOOK_NAME } from "../../components/nodes/lifecycleHooks";
import { requireDebianTool } from "../debianTools";
import { configWith, goldenResources, inputs, named, NON_ENI, ofType, planWith } from "../planHelpers";

const LT = "aws:ec2/launchTemplate:LaunchTemplate";
const ASG = "aws:autoscaling/group:Group";
const BUCKET_OBJECT = "aws:s3/bucketObjectv2:BucketObjectv2";
/** The units a control-plane node has beside the bootstrap's service (systemdUnits.ts). */
const CONTROL_PLANE_UNITS = [
  "etcd-backup.service",
  "etcd-backup.timer",
  "etcd-members.service",
  "etcd-members.timer",
  "etcd-leave.service",
  "certificate-renewal.service",
  "certificate-renewal.timer",
  "node-credentials.service",
  "kubelet-serving.service",
  "upgrade-finish.service",
  "upgrade-finish.timer",
];
/** A group's installer: the bootstrap bucket's object its user data (the loader) fetches. */
const userData = (plan: Plan, group: string) =>
  inputs(named(plan, BUCKET_OBJECT, `${group}-bootstrap`)).content as string;

describe("NodeLaunchTemplate", () => {
  let dev: Plan;
  let ha: Plan;
  before(async () => {
    dev = await planWith();
    ha = await planWith({
      "controlPlane.count": "3",
      "nodeGroups[1].name": "arm",
      "nodeGroups[1].instanceType": "m7g.large",
      "instanceMetadata.hopLimit": "2",
    });
  });

  it("declares a launch template and an Auto Scaling group per instance group", () => {
    expect(
      ofType(dev, LT)
        .map((r) => r.name)
        .sort(),
    ).to.deep.equal(["control-plane-us-east-1a-template", "nodes-template"]);
    expect(
      ofType(ha, ASG)
        .map((r) => r.name)
        .sort(),
    ).to.deep.equal([
      "arm-group",
      "control-plane-us-east-1a-group",
      "control-plane-us-east-1b-group",
      "control-plane-us-east-1c-group",
      "nodes-group",
    ]);
  });

  it("requires IMDSv2 with the configured hop limit on workers, one hop on the control plane, and encrypts a gp3 root volume", () => {
    for (const [plan, workerHops] of [
      [dev, 1],
      [ha, 2],
    ] as const) {
      for (const lt of ofType(plan, LT)) {
        const i = inputs(lt);
        expect(i.metadataOptions, lt.name).to.include({
          httpTokens: "required",
          httpEndpoint: "enabled",
          httpPutResponseHopLimit: lt.name.startsWith("control-plane-") ? 1 : workerHops,
        });
        expect(i.blockDeviceMappings[0].ebs).to.include({ encrypted: "true", volumeType: "gp3" });
      }
    }
    expect(inputs(named(dev, LT, "nodes-template")).blockDeviceMappings[0].ebs.volumeSize).to.equal(128);
    expect(inputs(named(dev, LT, "control-plane-us-east-1a-template")).blockDeviceMappings[0].ebs.volumeSize).to.equal(
      64,
    );
  });

  it("tags instances, volumes and network interfaces with the cluster tag", () => {
    const specs = inputs(named(dev, LT, "nodes-template")).tagSpecifications as {
      resourceType: string;
      tags: Record<string, string>;
    }[];
    expect(specs.map((s) => s.resourceType)).to.deep.equal(["instance", "volume", "network-interface"]);
    for (const s of specs)
      expect(s.tags).to.include({ KubernetesCluster: "dev.k8s.local", "kops.k8s.io/instancegroup": "nodes" });
  });

  it("picks the image for the instance type's architecture unless imageId is set", async () => {
    const arm = inputs(named(ha, LT, "arm-template")).imageId;
    const amd = inputs(named(ha, LT, "nodes-template")).imageId;
    expect(arm).to.match(/^ami-/).and.not.equal(amd);
    const pinned = await planWith({ "nodeGroups[0].imageId": "ami-0123456789abcdef0" });
    expect(inputs(named(pinned, LT, "nodes-template")).imageId).to.equal("ami-0123456789abcdef0");
  });

  it("pins the group to the template's latest version and rolls by instance refresh", () => {
    for (const asg of ofType(ha, ASG)) {
      const i = inputs(asg);
      expect(i.launchTemplate).to.deep.equal({
        id: `mock-launchtemplate-${asg.name.replace(/-group$/, "-template")}`,
        version: "1",
      });
      expect(i.instanceRefresh.strategy).to.equal("Rolling");
    }
    const cp = inputs(named(ha, ASG, "control-plane-us-east-1b-group"));
    // One node; a second only while an instance refresh replaces it (new first, below).
    expect(cp).to.include({ minSize: 1, maxSize: 2, desiredCapacity: 1, healthCheckType: "EC2" });
    expect(cp.targetGroupArns).to.deep.equal([
      "arn:aws:lb:us-east-1:000000000000:TargetGroup/network-api",
      "arn:aws:lb:us-east-1:000000000000:TargetGroup/network-api-internal",
    ]);
    expect(cp.vpcZoneIdentifiers).to.deep.equal(["mock-subnet-network-private-us-east-1b"]);
    // The replacement first: it joins etcd before the old node leaves, so no member is ever missing.
    expect(cp.instanceRefresh.preferences).to.include({ minHealthyPercentage: 100, maxHealthyPercentage: 200 });
    const nodes = inputs(named(ha, ASG, "nodes-group"));
    expect(nodes.targetGroupArns).to.deep.equal([]);
    expect(nodes.vpcZoneIdentifiers).to.have.length(3);
    // Workers within their size: old nodes first, at most a tenth at a time; their size is the autoscaler's.
    expect(nodes.instanceRefresh.preferences).to.include({ minHealthyPercentage: 90, maxHealthyPercentage: 100 });
    expect(nodes.desiredCapacity).to.equal(undefined);
  });

  it("uses EC2 health checks everywhere and holds each new instance on a launch hook its bootstrap completes", () => {
    for (const asg of ofType(ha, ASG)) {
      const i = inputs(asg);
      // The API target group's /readyz includes etcd: an etcd stall must not replace the control plane.
      expect(i.healthCheckType, asg.name).to.equal("EC2");
      const controlPlane = asg.name.startsWith("control-plane");
      // Not joined by the deadline (20 minutes on the control plane, 15 for workers): abandoned, terminated.
      const launching = (i.initialLifecycleHooks as { lifecycleTransition: string }[]).filter(
        (h) => h.lifecycleTransition === "autoscaling:EC2_INSTANCE_LAUNCHING",
      );
      expect(launching, asg.name).to.deep.equal([
        {
          name: LAUNCH_HOOK_NAME,
          lifecycleTransition: "autoscaling:EC2_INSTANCE_LAUNCHING",
          defaultResult: "ABANDON",
          heartbeatTimeout: controlPlane ? 1200 : 900,
        },
      ]);
      const script = filesOf(userData(ha, asg.name.replace(/-group$/, "")))[BOOTSTRAP_SCRIPT];
      expect(script, asg.name).to.contain(`LAUNCH_HOOK='${LAUNCH_HOOK_NAME}'`);
      expect(script, asg.name).to.match(/\n {2}step launch-hook complete_launch_hook\n {2}mark_joined\n/);
      expect(i.instanceRefresh.preferences, asg.name).to.include({ instanceWarmup: "120" });
      expect(i.waitForCapacityTimeout, asg.name).to.equal("0");
    }
  });

  it("launches instances only after the role's policies are attached, the cluster's key and the subnets' egress exist", async () => {
    const pub = await planWith({ topology: "public", ...NON_ENI });
    for (const [plan, route] of [
      [ha, "network-private-us-east-1a-default"],
      [pub, "network-public-default"],
    ] as const) {
      for (const asg of ofType(plan, ASG)) {
        const role = asg.name.startsWith("control-plane") ? "control-plane" : "nodes";
        const deps = (asg.dependencies ?? []).map((u) => u.split("::").pop());
        const attachments = ofType(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
          .map((a) => a.name)
          .filter((name) => name.startsWith(`${role}-`));
        expect(attachments.length, role).to.be.greaterThan(0);
        expect(deps, asg.name).to.include.members([...attachments, route, "secrets-key"]);
      }
    }
  });

  it("switching ipam from crd to eni changes user data and replaces only the installers (the seed's flow)", async () => {
    const crd = configWith({ "networking.cilium.ipam": "crd", "networking.cilium.disableMasquerade": "false" });
    const before = await planWith({}, crd);
    const after = await planWith(
      { "networking.cilium.ipam": "eni", "networking.cilium.disableMasquerade": "true" },
      crd,
    );
    const diff = diffPlans(before, after);
    // Only the groups' installers, each a new object under its new digest (the old one goes once the update ends).
    expect(diff.changes.filter((c) => c.op === "replace").map((c) => c.name)).to.deep.equal([
      "control-plane-us-east-1a-bootstrap",
      "nodes-bootstrap",
    ]);
    // The security groups' rules are the same in every mode: nothing is deleted or replaced.
    expect(diff.changes.filter((c) => c.op === "delete")).to.deep.equal([]);
    expect(diff.rollingGroups.sort()).to.deep.equal(["control-plane-us-east-1a-template", "nodes-template"]);
    const lt = diff.changes.find((c) => c.name === "nodes-template")!;
    expect(lt.changes.map((c) => c.path)).to.deep.equal(["userData"]);
    // The kubelet is told its own address from instance metadata (kubeadm's node-ip, filled at boot).
    const join = (plan: Plan) => kubeadmConfigsOf(userData(plan, "nodes")).join;
    expect(join(before)).not.to.contain("node-ip");
    expect(join(after)).to.contain("node-ip");
  });

  it("embeds a hash of the bootstrap config that changes with what the node is told", async () => {
    const hash = (plan: Plan) => /^\s*BOOTSTRAP_CONFIG_HASH='([^']+)'$/m.exec(userData(plan, "nodes"))![1];
    const newer = await planWith({ kubernetesVersion: "1.33.6" });
    expect(hash(dev)).to.match(/^[A-Za-z0-9+/]{43}=$/);
    expect(hash(newer)).not.to.equal(hash(dev));
    expect(hash(await planWith())).to.equal(hash(dev));
  });

  it("declares no secret: no key in user data, none in the plan's inputs or outputs, so none in the stack's state", () => {
    for (const plan of [dev, ha]) {
      for (const lt of ofType(plan, LT))
        expect(decodeUserData(inputs(lt).userData)).not.to.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
      for (const installer of ofType(plan, BUCKET_OBJECT))
        expect(inputs(installer).content).not.to.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
      // The cluster's CAs are made on its first control-plane node (bootstrap/control-plane.sh): no resource
      // makes a key, and no input or output is a Pulumi secret, which the state would keep.
      expect(plan.resources.filter((r) => r.type.startsWith("tls:"))).to.deep.equal([]);
      expect(JSON.stringify(plan.resources)).not.to.contain('"[secret]"');
      expect(JSON.stringify(plan.outputs)).not.to.contain('"[secret]"');
      // No admin credential among the outputs: admins make 15-minute tokens (npm run kubeconfig).
      expect(plan.outputs).not.to.have.property("kubeconfig");
      // The cluster's own key, for what the control plane stores.
      expect(inputs(named(plan, "aws:kms/key:Key", "secrets-key"))).to.include({ enableKeyRotation: true });
    }
  });

  it("tells the control plane where to store the cluster's keys, workers only where the CA's certificate is", () => {
    const header = (plan: Plan, group: string, name: string) =>
      new RegExp(`^\\s*${name}='([^']*)'$`, "m").exec(userData(plan, group))?.[1];
    const id = /initialized-([0-9a-f]{12})'/.exec(userData(dev, "control-plane-us-east-1a"))![1];
    expect(header(dev, "control-plane-us-east-1a", "SHARED_PKI_PARAMETERS")).to.equal(
      `/cilium-cluster/dev.k8s.local/control-plane/pki-${id}/`,
    );
    for (const group of ["control-plane-us-east-1a", "nodes"])
      expect(header(dev, group, "CLUSTER_CA_PARAMETER"), group).to.equal(
        `/cilium-cluster/dev.k8s.local/node/cluster-ca-${id}`,
      );
    expect(header(dev, "nodes", "SHARED_PKI_PARAMETERS")).to.equal(undefined);
    // The program declares no parameter there (only the images it pins): the keys, the CA's certificate and
    // each worker's credential are the control plane's to write, at boot.
    const names = ofType(dev, "aws:ssm/parameter:Parameter").map((p) => inputs(p).name as string);
    expect(names.filter((n) => !n.startsWith("/cilium-cluster/dev.k8s.local/images/"))).to.deep.equal([]);
  });
});

describe("user data of every example", () => {
  it("stays within the budget, in bytes before base64 as AWS counts them", () => {
    const sizes = examples().flatMap((e) =>
      goldenResources(e.name)
        .filter((r) => r.type === LT)
        .map((r) => ({ group: `${e.name}/${r.name}`, bytes: Buffer.from(inputs(r).userData, "base64").length })),
    );
    expect(sizes.length).to.be.greaterThan(10);
    expect(USER_DATA_BUDGET_BYTES).to.be.below(USER_DATA_LIMIT_BYTES);
    for (const { group, bytes } of sizes) expect(bytes, group).to.be.at.most(USER_DATA_BUDGET_BYTES);
  });

  it("is gzip that Debian's cloud-init inflates into the script, as it does on the instance", function () {
    this.timeout(60000);
    requireDebianTool(this, "cloud-init", "cloud-init");
    // cloud-init's own Python (its script's interpreter) and its own user-data processing: EC2 hands the
    // instance the launch template's bytes decoded from base64; cloud-init's UserDataProcessor inflates gzip
    // (util.decomp_gzip) and types the part by how it starts: a shell script, which cloud-init runs.
    const cloudInit = spawnSync("sh", ["-c", "command -v cloud-init"], { encoding: "utf8" }).stdout.trim();
    const python = readFileSync(cloudInit, "utf8")
      .split("\n")[0]
      .replace(/^#!\s*/, "")
      .split(/\s+/)[0];
    const processUserData = [
      "import base64, sys",
      "from cloudinit import helpers, user_data",
      "message = user_data.UserDataProcessor(helpers.Paths({})).process(base64.b64decode(sys.stdin.read()))",
      "parts = [p for p in message.walk() if not p.is_multipart()]",
      "assert len(parts) == 1, len(parts)",
      "sys.stdout.write(parts[0].get_content_type() + '\\n' + parts[0].get_payload(decode=True).decode())",
    ].join("\n");
    const example = examples()[0].name;
    const templates = goldenResources(example).filter((r) => r.type === LT);
    expect(templates.length).to.be.greaterThan(1);
    for (const template of templates) {
      const encoded = inputs(template).userData as string;
      expect(Buffer.from(encoded, "base64").subarray(0, 2).toString("hex"), template.name).to.equal("1f8b");
      const result = spawnSync(python, ["-c", processUserData], { input: encoded, encoding: "utf8" });
      expect(result.status, result.stderr).to.equal(0);
      const golden = readFileSync(join(GOLDEN_DIR, example, "userdata", `${template.name}.txt`), "utf8");
      expect(result.stdout, template.name).to.equal(`text/x-shellscript\n${golden}`);
    }
  });

  it("writes cloud-config that cloud-init's schema accepts", function () {
    this.timeout(60000);
    requireDebianTool(this, "cloud-init", "cloud-init");
    const dir = mkdtempSync(join(tmpdir(), "cloud-config-"));
    const blocks = examples().flatMap((e) =>
      readdirSync(join(GOLDEN_DIR, e.name, "bootstrap")).flatMap((f) => {
        const text = readFileSync(join(GOLDEN_DIR, e.name, "bootstrap", f), "utf8");
        return [...text.matchAll(/write_file (\/etc\/cloud\/cloud\.cfg\.d\/\S+) <<'EOF'\n([\s\S]*?)\nEOF\n/g)].map(
          (m) => m[2],
        );
      }),
    );
    expect(blocks.length, "ENI examples write a cloud-init drop-in").to.be.greaterThan(0);
    for (const [i, block] of [...new Set(blocks)].entries()) {
      const file = join(dir, `${i}.cfg`);
      writeFileSync(file, `#cloud-config\n${block}\n`);
      const result = spawnSync("cloud-init", ["schema", "--config-file", file], { encoding: "utf8" });
      expect(result.error).to.equal(undefined);
      expect(result.status, result.stderr + result.stdout).to.equal(0);
    }
  });

  /** Every group's installer, and the files it installs, written out under a scratch directory. */
  const installed = () => {
    const dir = mkdtempSync(join(tmpdir(), "installed-"));
    return examples().flatMap((e) =>
      readdirSync(join(GOLDEN_DIR, e.name, "bootstrap")).map((f) => {
        const root = join(dir, e.name, f);
        for (const [path, text] of Object.entries(
          filesOf(readFileSync(join(GOLDEN_DIR, e.name, "bootstrap", f), "utf8")),
        )) {
          mkdirSync(join(root, path, ".."), { recursive: true });
          writeFileSync(join(root, path), text, { mode: path === BOOTSTRAP_SCRIPT ? 0o755 : 0o644 });
        }
        return { group: `${e.name}/${f}`, root };
      }),
    );
  };

  it("installs units that systemd-analyze verify accepts", function () {
    this.timeout(120000);
    requireDebianTool(this, "systemd-analyze", "systemd");
    for (const { group, root } of installed()) {
      // verify --root needs the system's own units (multi-user.target, timers.target) below that root.
      cpSync("/lib/systemd/system", join(root, "usr/lib/systemd/system"), { recursive: true });
      // What the units run, as the packages install it: the bootstrap's kubeadm, coreutils' true.
      for (const program of ["usr/bin/kubeadm", "bin/true"]) {
        mkdirSync(join(root, program, ".."), { recursive: true });
        writeFileSync(join(root, program), "", { mode: 0o755 });
      }
      const names = readdirSync(join(root, "etc/systemd/system")).sort();
      // Workers: the bootstrap's service only; the control plane also its etcd and certificate units.
      expect(names, group).to.deep.equal(
        group.includes("/control-plane-") ? [...CONTROL_PLANE_UNITS, BOOTSTRAP_SERVICE].sort() : [BOOTSTRAP_SERVICE],
      );
      const units = names.map((u) => join(root, "etc/systemd/system", u));
      const result = spawnSync("systemd-analyze", ["verify", `--root=${root}`, ...units], { encoding: "utf8" });
      expect(result.error).to.equal(undefined);
      expect(result.stdout + result.stderr, group).to.equal("");
      expect(result.status, group).to.equal(0);
    }
  });

  it("is shellcheck clean, the installer it fetches and the bootstrap script that installs too", function () {
    requireDebianTool(this, "shellcheck", "shellcheck");
    const scripts = installed().map(({ root }) => join(root, BOOTSTRAP_SCRIPT));
    const files = [
      ...examples().flatMap((e) =>
        ["userdata", "bootstrap"].flatMap((folder) => {
          const dir = join(GOLDEN_DIR, e.name, folder);
          return readdirSync(dir).map((f) => join(dir, f));
        }),
      ),
      ...scripts,
    ];
    expect(scripts.length).to.be.greaterThan(5);
    const result = spawnSync("shellcheck", ["--shell=bash", "--severity=style", ...files], { encoding: "utf8" });
    expect(result.error).to.equal(undefined);
    expect(result.stdout + result.stderr).to.equal("");
    expect(result.status).to.equal(0);
  });
});
