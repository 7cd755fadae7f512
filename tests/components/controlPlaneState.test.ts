// The control plane's state on the node side and in the plan: the systemd units it ships, the termination
// hook, and what never happens on shutdown.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import {
  ETCD_LIFECYCLE_HOOK,
  ETCD_MEMBER_TAG,
  ETCD_STATE_TAG,
  TOOLS_PARAMETER,
  TOOLS_UNITS,
} from "../../components/nodes/controlPlaneState";
import { requireDebianTool } from "../debianTools";
import { decodeUserData } from "../../components/nodes/userDataEncoding";
import { SHELL_VARIABLES } from "../../components/nodes/userData";
import { ETCD_VOLUME_GIB } from "../../components/controlPlane/controlPlaneState";
import { backupBucketName, LATEST_SNAPSHOT_KEY } from "../../components/controlPlane/backupBucket";
import {
  controlPlaneToolsParts,
  controlPlaneToolsSha256,
  renderControlPlaneTools,
  toolsPartParameter,
} from "../../components/nodes/controlPlaneTools";
import { TIMEOUTS } from "../../components/timeouts";
import { examples, GOLDEN_DIR } from "../../plan/examples";
import type { Plan } from "../../plan/run";
import { inputs, named, ofType, planWith } from "../planHelpers";

const UNIT_DIR = join(__dirname, "../../components/nodes/bootstrap/units");
const UNITS = readdirSync(UNIT_DIR);
const ASG = "aws:autoscaling/group:Group";

/** Every golden user data of every example. */
const goldenUserData = () =>
  examples().flatMap((e) =>
    readdirSync(join(GOLDEN_DIR, e.name, "userdata")).map((f) => ({
      group: `${e.name}/${f}`,
      text: readFileSync(join(GOLDEN_DIR, e.name, "userdata", f), "utf8"),
    })),
  );

describe("control-plane state: units", () => {
  it("every unit file is shipped in the tools bundle, and passes systemd-analyze verify", function () {
    expect([...UNITS].sort()).to.deep.equal([...TOOLS_UNITS].sort());
    requireDebianTool(this, "systemd-analyze", "systemd");
    const dir = mkdtempSync(join(tmpdir(), "units-"));
    for (const u of UNITS) writeFileSync(join(dir, u), readFileSync(join(UNIT_DIR, u)));
    const r = spawnSync("systemd-analyze", ["verify", "--man=no", ...UNITS.map((u) => join(dir, u))], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.equal("");
  });

  it("no unit, user data or tool runs kubeadm reset: a reboot or stop never wipes etcd", () => {
    for (const u of UNITS) expect(readFileSync(join(UNIT_DIR, u), "utf8"), u).not.to.match(/kubeadm\s+reset/);
    const all = [...goldenUserData(), { group: "tools", text: renderControlPlaneTools() }];
    expect(all.length).to.be.greaterThan(10);
    for (const { group, text } of all) {
      expect(text, group).not.to.match(/kubeadm\s+reset/);
      // A unit's ExecStop runs on every shutdown: none of the units the bootstrap writes has one.
      for (const unit of text.matchAll(/<<'UNIT'\n([\s\S]*?)\nUNIT\n/g))
        expect(unit[1], group).not.to.contain("ExecStop");
    }
  });

  it("the etcd-lifecycle service completes the hook the groups declare", () => {
    expect(readFileSync(join(UNIT_DIR, "etcd-lifecycle.service"), "utf8")).to.match(
      new RegExp(`^ExecStart=.* etcd_lifecycle_watch ${ETCD_LIFECYCLE_HOOK}$`, "m"),
    );
  });
});

describe("control-plane tools bundle", () => {
  it("runs in its units with every bootstrap variable it reads (their EnvironmentFile), quoted as systemd reads them", function () {
    const bundle = renderControlPlaneTools();
    const read = Object.values(SHELL_VARIABLES).filter((v) => new RegExp(`\\$\\{?${v}\\b`).test(bundle));
    expect(read).to.include.members(["CLUSTER_NAME", "REGION", "ETCD_MEMBERS", "PRIVATE_ZONE_ID"]);
    const module = readFileSync(join(__dirname, "../../components/nodes/bootstrap/control-plane-tools.sh"), "utf8");
    const env = spawnSync("bash", ["-c", `${module}\ntools_environment`], {
      encoding: "utf8",
      env: { ...Object.fromEntries(read.map((v) => [v, `${v.toLowerCase()} value`])) },
    });
    expect(env.status, env.stderr).to.equal(0);
    expect(env.stdout.trim().split("\n").sort()).to.deep.equal(
      read.map((v) => `${v}="${v.toLowerCase()} value"`).sort(),
    );
    for (const u of UNITS.filter((u) => u.endsWith(".service"))) {
      expect(readFileSync(join(UNIT_DIR, u), "utf8"), u).to.contain(
        "EnvironmentFile=/etc/cilium-cluster/control-plane-tools.env",
      );
    }
  });

  it("points the member's name at its node again every 10 minutes (an update of the record writes a placeholder)", () => {
    expect(readFileSync(join(UNIT_DIR, "etcd-name.service"), "utf8")).to.match(/^ExecStart=.* etcd_dns_claim$/m);
    expect(readFileSync(join(UNIT_DIR, "etcd-name.timer"), "utf8")).to.match(/^OnUnitActiveSec=10min$/m);
  });

  it("is shellcheck clean as a whole, and runs only what it is asked", function () {
    requireDebianTool(this, "shellcheck", "shellcheck");
    const dir = mkdtempSync(join(tmpdir(), "tools-"));
    const file = join(dir, "control-plane-tools");
    writeFileSync(file, renderControlPlaneTools());
    const r = spawnSync("shellcheck", ["--severity=style", "--exclude=SC2154", file], { encoding: "utf8" });
    expect(r.stdout + r.stderr).to.equal("");
    const none = spawnSync("bash", [file], { encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
    expect([none.status, none.stdout, none.stderr]).to.deep.equal([0, "", ""]);
    const quorum = spawnSync("bash", [file, "etcd_quorum", "3"], { encoding: "utf8" });
    expect(quorum.stdout).to.equal("2\n");
  });
});

type Inputs = Record<string, Record<string, unknown> | unknown>;

/**
 * Pulumi's engine before it diffs a resource (pkg/resource/deploy/step_generator.go, processIgnoreChanges): for
 * each ignoreChanges path, the old inputs' value there replaces the new inputs' (it is set when only the old
 * inputs have it, removed when only the new ones do). The model covers paths of the form `prop["key"]`, the
 * property-path form of a map key holding "/" (sdk/go/common/resource/properties_path.go).
 */
function withIgnoredChanges(news: Inputs, olds: Inputs, paths: string[]): Inputs {
  const out = structuredClone(news) as Record<string, Record<string, unknown>>;
  for (const path of paths) {
    const m = /^(\w+)\["([^"]+)"\]$/.exec(path);
    if (!m) throw new Error(`the model covers prop["key"] paths only: ${path}`);
    const [, prop, key] = m;
    const old = (olds[prop] as Record<string, unknown> | undefined)?.[key];
    if (old !== undefined) out[prop] = { ...out[prop], [key]: old };
    else if (out[prop]) delete out[prop][key];
  }
  return out;
}

describe("control-plane state: plan", () => {
  let ha: Plan;
  before(async () => {
    ha = await planWith({ "controlPlane.count": "3" });
  });

  it("ships the tools bundle the control-plane user data names by its SHA-256, in parameters SSM accepts", () => {
    const parts = controlPlaneToolsParts();
    const stored = ofType(ha, "aws:ssm/parameter:Parameter")
      .filter((p) => inputs(p).name.includes(`/control-plane/${TOOLS_PARAMETER}`))
      .map(inputs);
    expect(stored.map((p) => p.name)).to.deep.equal(
      parts.map((_, i) => `/cilium-cluster/dev.k8s.local/control-plane/${toolsPartParameter(i)}`),
    );
    expect(inputs(named(ha, "aws:ssm/parameter:Parameter", "control-plane-state-tools")).name).to.equal(
      `/cilium-cluster/dev.k8s.local/control-plane/${TOOLS_PARAMETER}`,
    );
    // SSM's advanced tier holds at most 8 KB a value (the plan writes the values as secrets); the node joins
    // the parts and decodes them back to the text its hash names.
    for (const p of stored) expect(p.type).to.equal("String");
    for (const part of parts) expect(Buffer.byteLength(part)).to.be.at.most(8192);
    expect(decodeUserData(parts.join(""))).to.equal(renderControlPlaneTools());
    const sha = controlPlaneToolsSha256();
    for (const lt of ofType(ha, "aws:ec2/launchTemplate:LaunchTemplate")) {
      const text = decodeUserData(inputs(lt).userData);
      const controlPlane = lt.name.startsWith("control-plane-");
      expect(text, lt.name).to.contain(`CONTROL_PLANE_TOOLS_SHA256='${controlPlane ? sha : ""}'`);
      expect(text, lt.name).to.contain(`CONTROL_PLANE_TOOLS_PARTS='${controlPlane ? parts.length : 0}'`);
    }
  });

  it("declares an encrypted etcd volume per member, in its zone, tagged for the cluster and member", () => {
    const volumes = ofType(ha, "aws:ebs/volume:Volume");
    expect(volumes.map((v) => inputs(v).availabilityZone).sort()).to.deep.equal([
      "us-east-1a",
      "us-east-1b",
      "us-east-1c",
    ]);
    for (const v of volumes) {
      const i = inputs(v);
      expect(i).to.include({ encrypted: true, type: "gp3", size: ETCD_VOLUME_GIB });
      expect(i.tags).to.include({
        KubernetesCluster: "dev.k8s.local",
        [ETCD_MEMBER_TAG]: i.availabilityZone,
        "k8s.io/role/control-plane": "1",
      });
      // The state tag is the nodes' alone: not declared, and a refreshed value of it is kept by the engine
      // (ignoreChanges on that map key; Pulumi's property paths quote a key holding "/").
      expect(i.tags).not.to.have.property(ETCD_STATE_TAG);
      expect(v.ignoreChanges).to.deep.equal(['tags["cilium-cluster/etcd-state"]']);
      // A preview after the node tagged the volume and a refresh read the tag back into the state: no diff.
      // Without ignoreChanges, the program's tags would remove the node's.
      const refreshed = { ...i, tags: { ...i.tags, [ETCD_STATE_TAG]: "member" } };
      expect(withIgnoredChanges(i, refreshed, v.ignoreChanges!)).to.deep.equal(refreshed);
      expect(withIgnoredChanges(i, refreshed, [])).not.to.deep.equal(refreshed);
      // A volume no node has tagged yet (no refresh since): nothing changes either.
      expect(withIgnoredChanges(i, i, v.ignoreChanges!)).to.deep.equal(i);
    }
    // The instance attaches it: the launch template's root volume stays the only one it declares.
    for (const lt of ofType(ha, "aws:ec2/launchTemplate:LaunchTemplate"))
      expect(
        inputs(lt).blockDeviceMappings.map((b: { ebs: { deleteOnTermination: string } }) => b.ebs.deleteOnTermination),
      ).to.deep.equal(["true"]);
  });

  it("keeps backups in a versioned, encrypted, private bucket with a retention lifecycle", async () => {
    const bucket = inputs(named(ha, "aws:s3/bucket:Bucket", "control-plane-state-backups"));
    expect(bucket.bucket).to.equal(backupBucketName("dev.k8s.local", "000000000000", "us-east-1"));
    expect(bucket.forceDestroy ?? false, "backups outlive the cluster").to.equal(false);
    const of = (type: string) => inputs(named(ha, type, "control-plane-state-backups"));
    expect(of("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock")).to.include({
      blockPublicAcls: true,
      blockPublicPolicy: true,
      ignorePublicAcls: true,
      restrictPublicBuckets: true,
    });
    expect(of("aws:s3/bucketVersioning:BucketVersioning").versioningConfiguration).to.deep.equal({ status: "Enabled" });
    expect(
      of("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration").rules[0],
    ).to.deep.include({
      applyServerSideEncryptionByDefault: { sseAlgorithm: "aws:kms" },
    });
    // Snapshots named by time expire by age; the fixed key's current version never does, and the newest of
    // its replaced versions stay beyond the retention period.
    const rules = of("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration").rules;
    expect(rules).to.deep.equal([
      {
        id: "etcd-snapshot-retention",
        status: "Enabled",
        filter: { prefix: "etcd/" },
        expiration: { days: 30 },
        noncurrentVersionExpiration: { noncurrentDays: 1 },
        abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
      },
      {
        id: "etcd-latest-snapshot",
        status: "Enabled",
        filter: { prefix: LATEST_SNAPSHOT_KEY },
        noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: 3 },
        abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
      },
    ]);
    // No rule with an expiration of current versions reaches the fixed key.
    for (const rule of rules.filter((r: { expiration?: unknown }) => r.expiration))
      expect(LATEST_SNAPSHOT_KEY.startsWith(rule.filter.prefix), rule.id).to.equal(false);
    const week = await planWith({
      "controlPlane.backupRetentionDays": "7",
      "controlPlane.backupIntervalMinutes": "60",
    });
    const weekRules = inputs(
      named(week, "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "control-plane-state-backups"),
    ).rules;
    expect(weekRules[0].expiration).to.deep.equal({ days: 7 });
    expect(weekRules[1].noncurrentVersionExpiration).to.deep.equal({ noncurrentDays: 1, newerNoncurrentVersions: 3 });
    const cpData = decodeUserData(
      inputs(named(week, "aws:ec2/launchTemplate:LaunchTemplate", "control-plane-us-east-1a-template")).userData,
    );
    expect(cpData).to.contain("BACKUP_INTERVAL_MINUTES='60'");
    expect(cpData).to.contain(`BACKUP_BUCKET='${bucket.bucket}'`);
  });

  it("control-plane groups replace their one node old-first, so the volume moves to the replacement", () => {
    for (const asg of ofType(ha, ASG).filter((a) => a.name.startsWith("control-plane-")))
      expect(inputs(asg).instanceRefresh.preferences, asg.name).to.include({
        minHealthyPercentage: 0,
        maxHealthyPercentage: 100,
      });
  });

  it("control-plane groups hold terminating instances for the etcd member; worker groups do not", () => {
    for (const asg of ofType(ha, ASG)) {
      // Beside the launch hook every group has (nodeLaunchTemplate.test.ts).
      const hooks = ((inputs(asg).initialLifecycleHooks ?? []) as { lifecycleTransition: string }[]).filter(
        (h) => h.lifecycleTransition === "autoscaling:EC2_INSTANCE_TERMINATING",
      );
      if (asg.name.startsWith("control-plane-")) {
        expect(hooks, asg.name).to.deep.equal([
          {
            name: ETCD_LIFECYCLE_HOOK,
            lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
            heartbeatTimeout: TIMEOUTS.etcd.leaveHeartbeatSeconds,
            defaultResult: "CONTINUE",
          },
        ]);
      } else expect(hooks, asg.name).to.deep.equal([]);
    }
  });
});
