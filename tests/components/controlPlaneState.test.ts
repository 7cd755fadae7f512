// The control plane's state in the plan (the init record's name, the backup bucket, nothing per member) and
// on the node: the termination hook and the unit that waits in it, and what never happens at a stop.
import { expect } from "chai";
import { spawn } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { INIT_RECORD_PARAMETER, LATEST_SNAPSHOT_KEY, SNAPSHOT_METRIC } from "../../components/nodes/controlPlaneNames";
import { DRAIN_LIFECYCLE_HOOK, ETCD_LIFECYCLE_HOOK, groupLifecycleHooks } from "../../components/nodes/lifecycleHooks";
import { filesOf } from "../../components/nodes/userData";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { modulePath } from "../../components/nodes/bootstrapModuleFiles";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { factsHeader } from "../../components/nodes/shellHeader";
import { BOOTSTRAP_SCRIPT, systemdUnits } from "../../components/nodes/systemdUnits";
import { backupBucketName } from "../../components/controlPlane/backupBucket";
import { TIMEOUTS } from "../../components/timeouts";
import { MOCK_ACCOUNT } from "../../cli/plan/mocks";
import type { Plan } from "../../cli/plan/run";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";
import { declaredBy, inputs, installerOf, installers, named, ofType, planWith } from "../planHelpers";
import { cliDirectory, startAws } from "../standins/aws";
import { waitFor } from "../waitFor";

const FINAL_SNAPSHOT_TRIES = TIMEOUTS.bootstrapScripts.finalSnapshotTries;

const ASG = "aws:autoscaling/group:Group";
const LT = "aws:ec2/launchTemplate:LaunchTemplate";

const spec = validateConfig(baseConfig(), REGION).spec;
const configOf = (role: string) =>
  bootstrapConfig(
    spec,
    instanceGroups(spec).find((g) => g.role === role)!,
    { internal: "api.internal.dev.k8s.local", public: "api.dev.k8s.local", caParameter: "/cluster-ca" },
    {
      initRecord: "/cilium-cluster/dev.k8s.local/control-plane/initialized-0123456789ab",
      restoreRequest: "/cilium-cluster/dev.k8s.local/control-plane/restore-request-0123456789ab",
      backupBucket: "backups",
      encryptionKeys: "/encryption-keys",
      sharedPki: "/pki/",
      adminRoleArn: "arn:aws:iam::000000000000:role/admins.dev.k8s.local",
    },
  );

describe("control-plane state: on the node", () => {
  it("runs nothing at a stop or reboot: no unit the bootstrap installs has a stop command", () => {
    for (const role of ["control-plane", "node"]) {
      for (const [name, text] of Object.entries(systemdUnits(configOf(role))))
        expect(text, `${role} ${name}`).not.to.match(/^ExecStop/m);
    }
  });

  it("the etcd-leave service waits in the hook the control-plane groups declare", () => {
    expect(systemdUnits(configOf("control-plane"))["etcd-leave.service"]).to.match(
      new RegExp(`^ExecStart=${BOOTSTRAP_SCRIPT} leave_etcd_on_termination ${ETCD_LIFECYCLE_HOOK}$`, "m"),
    );
  });

  /**
   * leave_etcd_on_termination HOOK on an instance of a control-plane group in the AWS fake, with the group's
   * own hooks, in service: its watch reads instance metadata; once it has read twice, Auto Scaling terminates
   * the instance. The node is drained from the `drainedAt`th look on (drain.sh, run against the real API
   * server in tests/kubernetes/); the member's removal (etcd.sh, tested against real etcd in tests/etcd/)
   * fails its first `removalFailures` tries. Returns the script's status, the fake's calls and the instance,
   * what happened before the termination, and the looks and removals in order.
   */
  async function leave(
    removalFailures = 0,
    drainedAt = 1,
    { member = true, last = false, backupFailures = 0, backupSeconds = 0 } = {},
  ) {
    const aws = await startAws();
    // Its root: the etcd CA once kubeadm has (or is about to have) added a member of its own.
    const root = mkdtempSync(join(tmpdir(), "leave-"));
    if (member) {
      mkdirSync(join(root, "etc/kubernetes/pki/etcd"), { recursive: true });
      writeFileSync(join(root, "etc/kubernetes/pki/etcd/ca.crt"), "");
    }
    const instance = aws.launch(
      {
        id: "i-0123456789abcdef0",
        privateIp: "10.0.1.10",
        zone: "us-east-1a",
        instanceType: "t3.large",
        mac: "0a:00:00:00:00:01",
        tags: {},
      },
      { name: "control-plane-us-east-1a.dev.k8s.local", hooks: groupLifecycleHooks({ role: "control-plane" }) },
    );
    // It joined long ago: its launch hook was completed.
    instance.lifecycleState = "InService";
    const dir = cliDirectory(aws.cliScript(instance.id));
    const lines = (file: string) =>
      existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8").trim().split("\n") : [];
    const script = [
      factsHeader(),
      `source ${JSON.stringify(modulePath("lib"))}`,
      `source ${JSON.stringify(modulePath("control-plane"))}`,
      `sleep() { echo "$1" >>${dir}/pauses; command sleep 0.05; }`,
      "node_name() { echo ip-10-0-12-34; }",
      // In a command substitution: the count of looks is kept in a file.
      `node_drained() { echo "drained? $*" >>${dir}/steps; echo x >>${dir}/looks; if [ "$(wc -l <${dir}/looks)" -ge ${drainedAt} ]; then echo yes; else echo no; fi; }`,
      `etcd_remove_members() { echo "remove $* $(imds autoscaling/target-lifecycle-state)" >>${dir}/steps; tries=$(( \${tries:-0} + 1 )); [ "$tries" -gt ${removalFailures} ]; }`,
      // Whether its member is the only one its etcd lists (etcd.sh), and the backup unit systemd would start.
      `etcd_sole_member() { echo ${last ? "yes" : "no"}; }`,
      `systemctl() { echo "systemctl $*" >>${dir}/steps; command sleep ${backupSeconds}; backups=$(( \${backups:-0} + 1 )); [ "$backups" -gt ${backupFailures} ]; }`,
      `leave_etcd_on_termination ${ETCD_LIFECYCLE_HOOK}`,
    ].join("\n");
    const run = spawn("bash", ["-c", `set -euo pipefail\n${script}`], {
      env: {
        ...process.env,
        PATH: `${dir}:${process.env.PATH}`,
        IMDS_ENDPOINT: aws.imdsUrl(instance.id),
        BOOTSTRAP_ROOT: root,
        REGION: "us-east-1",
        BOOTSTRAP_RETRY_DELAY: "0",
        BOOTSTRAP_TRIES: "2",
      },
      stdio: "ignore",
    });
    const status = new Promise<number | null>((done) => run.on("close", done));
    try {
      await waitFor(
        "two reads of the instance's target lifecycle state",
        () => lines("pauses").length >= 2,
        30_000,
        50,
      );
      const inService = { calls: [...aws.calls], steps: lines("steps") };
      aws.terminate(instance.id);
      return { status: await status, inService, calls: aws.calls, instance, steps: lines("steps") };
    } finally {
      run.kill();
      await aws.close();
    }
  }

  it("the member leaves only once Auto Scaling terminates the instance and its node is drained, then the termination goes on", async () => {
    const terminated = await leave();
    expect(terminated.inService).to.deep.equal({ calls: [], steps: [] });
    expect(terminated.status).to.equal(0);
    expect(terminated.steps).to.deep.equal(["drained? ip-10-0-12-34", "remove self Terminated"]);
    expect(terminated.calls.map((c) => [c.action, c.refused])).to.deep.equal([
      ["autoscaling:DescribeAutoScalingInstances", undefined],
      ["autoscaling:CompleteLifecycleAction", undefined],
    ]);
    // The node completes its own hook; the drain hook is the termination handler's.
    expect(terminated.instance).to.include({ lifecycleState: "Terminating:Wait", heartbeats: 0 });
    expect(terminated.instance.terminationActions).to.deep.equal([DRAIN_LIFECYCLE_HOOK]);
    // The member leaves only once the node is drained, its instance held meanwhile.
    const draining = await leave(0, 3);
    expect(draining.status).to.equal(0);
    expect(draining.steps).to.deep.equal([
      "drained? ip-10-0-12-34",
      "drained? ip-10-0-12-34",
      "drained? ip-10-0-12-34",
      "remove self Terminated",
    ]);
    expect(draining.calls.map((c) => [c.action, c.refused])).to.deep.equal([
      ["autoscaling:DescribeAutoScalingInstances", undefined],
      ["autoscaling:RecordLifecycleActionHeartbeat", undefined],
      ["autoscaling:RecordLifecycleActionHeartbeat", undefined],
      ["autoscaling:CompleteLifecycleAction", undefined],
    ]);
    // A member that has not left keeps its instance, with a heartbeat each try, and the hook completes after.
    const failing = await leave(2);
    expect(failing.status).to.equal(0);
    expect(failing.steps.filter((l) => l.startsWith("remove"))).to.have.length(3);
    expect(failing.calls.map((c) => [c.action, c.refused])).to.deep.equal([
      ["autoscaling:DescribeAutoScalingInstances", undefined],
      ["autoscaling:RecordLifecycleActionHeartbeat", undefined],
      ["autoscaling:RecordLifecycleActionHeartbeat", undefined],
      ["autoscaling:CompleteLifecycleAction", undefined],
    ]);
    expect(failing.instance).to.include({ lifecycleState: "Terminating:Wait", heartbeats: 2 });
  });

  it("armed before the join: an instance without a member of its own lets the termination go on at once", async () => {
    const early = await leave(0, 1, { member: false });
    expect(early.status).to.equal(0);
    expect(early.steps).to.deep.equal([]);
    expect(early.calls.map((c) => c.action)).to.deep.equal([
      "autoscaling:DescribeAutoScalingInstances",
      "autoscaling:CompleteLifecycleAction",
    ]);
  });

  it("the cluster's last member saves a final snapshot before it goes, tried again with a heartbeat, then goes anyway", async () => {
    // The only member its etcd lists (a replacement launched meanwhile is no member yet): a snapshot, no
    // removal (no one to leave), then the termination goes on.
    const last = await leave(0, 1, { last: true });
    expect(last.status).to.equal(0);
    expect(last.steps).to.deep.equal(["drained? ip-10-0-12-34", "systemctl start etcd-backup.service"]);
    expect(last.calls.map((c) => c.action).at(-1)).to.equal("autoscaling:CompleteLifecycleAction");
    // A snapshot that takes longer than the hook's heartbeat timeout keeps the instance with heartbeats.
    const slow = await leave(0, 1, { last: true, backupSeconds: 1 });
    expect(slow.status).to.equal(0);
    expect(slow.instance.heartbeats).to.be.at.least(3);
    // With other members, no snapshot: it leaves them.
    expect((await leave()).steps).to.deep.equal(["drained? ip-10-0-12-34", "remove self Terminated"]);
    // A snapshot that fails is tried again, the instance held meanwhile; after the last try it goes anyway.
    const failing = await leave(0, 1, { last: true, backupFailures: 5 });
    expect(failing.status).to.equal(0);
    expect(failing.steps.filter((l) => l.startsWith("systemctl"))).to.have.length(FINAL_SNAPSHOT_TRIES);
    expect(failing.instance.heartbeats).to.be.at.least(FINAL_SNAPSHOT_TRIES);
    expect(failing.calls.map((c) => c.action).at(-1)).to.equal("autoscaling:CompleteLifecycleAction");
  });
});

describe("control-plane state: plan", () => {
  let ha: Plan;
  before(async () => {
    ha = await planWith({ "controlPlane.count": "3" });
  });

  it("declares the init record's name, with an id of the cluster, and the backup bucket: nothing per member", () => {
    const declared = declaredBy(ha, "cilium-cluster:controlPlane:ControlPlaneState", "control-plane-state");
    const id = declared.filter((r) => r.type === "random:index/randomId:RandomId");
    expect(id.map((r) => [r.name, inputs(r).byteLength])).to.deep.equal([["control-plane-state-cluster-id", 6]]);
    for (const r of declared.filter((x) => !id.includes(x))) {
      expect(r.type, r.name).to.match(/^aws:(s3\/|cloudwatch\/metricAlarm:)/);
      expect(r.name).to.equal("control-plane-state-backups");
    }
    // etcd is on each node's root volume: the launch template's only volume, deleted with the instance.
    expect(ofType(ha, "aws:ebs/volume:Volume")).to.deep.equal([]);
    for (const lt of ofType(ha, LT).filter((t) => t.name.startsWith("control-plane-")))
      expect(
        inputs(lt).blockDeviceMappings.map((b: { ebs: { deleteOnTermination: string } }) => b.ebs.deleteOnTermination),
        lt.name,
      ).to.deep.equal(["true"]);
    // One record for the whole cluster, named by the id, told to every control-plane node and no worker.
    const records = installers(ha).map(([group, installer]): [string, string | undefined] => [
      group,
      /^\s*INIT_RECORD='([^']*)'$/m.exec(installer)?.[1],
    ]);
    const pattern = new RegExp(
      `^/cilium-cluster/dev\\.k8s\\.local/control-plane/${INIT_RECORD_PARAMETER}-[0-9a-f]{12}$`,
    );
    const controlPlane = records.filter(([name]) => name.startsWith("control-plane-"));
    expect(controlPlane).to.have.length(3);
    expect(new Set(controlPlane.map(([, record]) => record)).size).to.equal(1);
    expect(controlPlane[0][1]).to.match(pattern);
    for (const [name, record] of records.filter(([n]) => !n.startsWith("control-plane-")))
      expect(record, name).to.equal(undefined);
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
      // The cluster's own key (the mocks' ARN for it): S3's AWS-managed one opens to any role with S3 read.
      applyServerSideEncryptionByDefault: {
        sseAlgorithm: "aws:kms",
        kmsMasterKeyId: `arn:aws:kms:us-east-1:${MOCK_ACCOUNT}:Key/secrets-key`,
      },
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
    // The control plane's timer uploads at the interval, to the bucket its nodes are told.
    const cpData = installerOf(week, "control-plane-us-east-1a");
    expect(cpData).to.contain(`BACKUP_BUCKET='${bucket.bucket}'`);
    const files = filesOf(cpData);
    expect(files["/etc/systemd/system/etcd-backup.timer"]).to.match(/^OnUnitActiveSec=60min$/m);
    expect(files["/etc/systemd/system/etcd-backup.service"]).to.match(
      new RegExp(`^ExecStart=${BOOTSTRAP_SCRIPT} etcd_backup$`, "m"),
    );
  });

  it("control-plane groups launch the replacement first: it joins etcd before the old member leaves", () => {
    for (const asg of ofType(ha, ASG).filter((a) => a.name.startsWith("control-plane-"))) {
      const i = inputs(asg);
      expect(i, asg.name).to.include({ minSize: 1, desiredCapacity: 1, maxSize: 2 });
      expect(i.instanceRefresh.preferences, asg.name).to.include({
        minHealthyPercentage: 100,
        maxHealthyPercentage: 200,
      });
    }
  });

  it("control-plane groups hold terminating instances for the etcd member too; every group for the drain", () => {
    const drain = {
      name: DRAIN_LIFECYCLE_HOOK,
      lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
      heartbeatTimeout: TIMEOUTS.drain.hookHeartbeatSeconds,
      defaultResult: "CONTINUE",
    };
    for (const asg of ofType(ha, ASG)) {
      // Beside the launch hook every group has (nodeLaunchTemplate.test.ts).
      const hooks = ((inputs(asg).initialLifecycleHooks ?? []) as { lifecycleTransition: string }[]).filter(
        (h) => h.lifecycleTransition === "autoscaling:EC2_INSTANCE_TERMINATING",
      );
      if (asg.name.startsWith("control-plane-")) {
        expect(hooks, asg.name).to.deep.equal([
          drain,
          {
            name: ETCD_LIFECYCLE_HOOK,
            lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
            heartbeatTimeout: TIMEOUTS.etcd.leaveHeartbeatSeconds,
            defaultResult: "CONTINUE",
          },
        ]);
      } else expect(hooks, asg.name).to.deep.equal([drain]);
    }
  });
});

describe("control-plane state: the backups' alarm", () => {
  it("goes off after two backup intervals without an upload, or with no data at all; the leader counts each upload", async () => {
    const plan = await planWith({ "controlPlane.backupIntervalMinutes": "20" });
    const [alarm] = ofType(plan, "aws:cloudwatch/metricAlarm:MetricAlarm");
    expect(inputs(alarm)).to.deep.include({
      namespace: "cilium-cluster/dev.k8s.local",
      metricName: SNAPSHOT_METRIC.name,
      dimensions: { [SNAPSHOT_METRIC.dimension]: "dev.k8s.local" },
      statistic: "Sum",
      period: 1200,
      evaluationPeriods: 2,
      comparisonOperator: "LessThanThreshold",
      threshold: 1,
      treatMissingData: "breaching",
    });
  });
});
