// etcd_remove_departed (bootstrap/etcd-members.sh), run by a control-plane node once it joined: against a
// real five-member etcd on loopback addresses, a fake instance-metadata service and a stand-in AWS CLI that
// answers DescribeInstances as EC2 does (the instances of the cluster at an address, with their state and
// zone; nothing when none is there). An etcdctl wrapping the real one stands for a member that does not answer
// its status.
import { expect } from "chai";
import { spawn } from "child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import type { Server } from "http";
import { startImds } from "./imds";
import { AddressInfo } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { renderControlPlaneTools } from "../../components/nodes/controlPlaneTools";
import { requireBinary } from "../kubernetes/binaries";
import {
  EtcdMember,
  etcdctl,
  freePortOn,
  initialCluster,
  startMember,
  stopAll,
  stopMember,
  waitHealthy,
  etcdToolsDir,
} from "./realEtcd";
import { itFailsOnEtcd36 } from "./pendingOnProvenEngines";

const ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"];
const ETCD_MEMBERS = ZONES.map((z) => `${z}=etcd-${z}.internal.dev.k8s.local`).join(" ");

/**
 * EC2's DescribeInstances with --filters Name=private-ip-address,Values=IP Name=tag:KubernetesCluster,Values=C
 * and the node's --query ([State.Name, Placement.AvailabilityZone], text): STUB_INSTANCES holds the cluster's
 * instances as "IP STATE ZONE [ROLE]" lines (ROLE: control-plane, the default, or worker; the
 * k8s.io/role/control-plane=1 filter keeps control-plane ones), also filtered by availability-zone. STUB_EC2_DOWN: EC2 answers with an error (the CLI exits non-zero).
 */
const AWS_STUB = `echo "aws $*" >> "$STUB_LOG"
[ "$1 $2" = "ec2 describe-instances" ] || exit 1
if [ -n "$STUB_EC2_DOWN" ]; then echo "An error occurred (RequestLimitExceeded) when calling the DescribeInstances operation" >&2; exit 254; fi
ip=; zone=; role=; cluster=
for a in "$@"; do case "$a" in
Name=private-ip-address,Values=*) ip=\${a#*Values=};; Name=tag:KubernetesCluster,Values=*) cluster=\${a#*Values=};;
Name=availability-zone,Values=*) zone=\${a#*Values=};; Name=tag:k8s.io/role/control-plane,Values=1) role=control-plane;;
Name=*) echo "unknown filter $a" >&2; exit 252;;
esac; done
[ "$cluster" = dev.k8s.local ] || exit 0
printf '%s\\n' "$STUB_INSTANCES" | awk -v ip="$ip" -v zone="$zone" -v role="$role" \\
  'NF && (ip == "" || $1 == ip) && (zone == "" || $3 == zone) && (role == "" || ($4 == "" ? "control-plane" : $4) == role) { print $2 "\\t" $3 }'`;

describe("departed etcd members leave when a control-plane node has joined, against a real etcd", function () {
  this.timeout(120000);
  let dir: string;
  let imds: Server;
  let members: EtcdMember[] = [];

  before(async function () {
    requireBinary(this, "etcd");
    requireBinary(this, "etcdctl");
    imds = await startImds({ "placement/availability-zone": "us-east-1a" });
    dir = mkdtempSync(join(tmpdir(), "etcd-departed-"));
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin/aws"), `#!/bin/bash\n${AWS_STUB}\n`);
    chmodSync(join(dir, "bin/aws"), 0o755);
    writeFileSync(join(dir, "control-plane-tools"), renderControlPlaneTools());
  });
  after(() => imds?.close());
  afterEach(async () => stopAll(members));

  /** COUNT members, member i at 127.0.0.(i+2), all on one peer and one client port. */
  async function startAt(count: number): Promise<EtcdMember[]> {
    const addresses = Array.from({ length: count }, (_, i) => `127.0.0.${i + 2}`);
    const [peer, client] = [await freePortOn(addresses), await freePortOn(addresses)];
    const data = mkdtempSync(join(dir, "cluster-"));
    members = addresses.map((a, i) => ({
      name: `m${i + 1}`,
      peerUrl: `http://${a}:${peer}`,
      clientUrl: `http://${a}:${client}`,
      dataDir: join(data, `m${i + 1}`),
    }));
    for (const m of members) startMember(m, initialCluster(members), "new");
    await waitHealthy(members);
    return members;
  }

  /** The tools bundle's FUNCTION ARGS on m1's node (zone us-east-1a), EC2 holding INSTANCES. */
  function onFirstNode(instances: string[], fn: string, ...args: string[]) {
    return onFirstNodeWith({}, instances, fn, ...args);
  }

  /** onFirstNode with ENV over the node's environment. */
  function onFirstNodeWith(env: Record<string, string>, instances: string[], fn: string, ...args: string[]) {
    const log = join(dir, `aws-${Date.now()}`);
    writeFileSync(log, "");
    const child = spawn("bash", [join(dir, "control-plane-tools"), fn, ...args], {
      env: {
        PATH: `${join(dir, "bin")}:${process.env.PATH}`,
        IMDS_ENDPOINT: `http://127.0.0.1:${(imds.address() as AddressInfo).port}`,
        STUB_LOG: log,
        STUB_INSTANCES: instances.join("\n"),
        REGION: "us-east-1",
        CLUSTER_NAME: "dev.k8s.local",
        ETCD_MEMBERS,
        // m1 is this node's member (no member for the pure checks).
        ETCD_LOCAL: members[0]?.clientUrl ?? "",
        ETCD_ENDPOINTS: members[0]?.clientUrl ?? "",
        ETCD_DEPARTED_TRIES: "2",
        ETCD_DEPARTED_INTERVAL: "0",
        ETCD_RETRIES: "3",
        BOOTSTRAP_TRIES: "2",
        BOOTSTRAP_RETRY_DELAY: "0",
        ETCDCTL_CACERT: "",
        ETCDCTL_CERT: "",
        ETCDCTL_KEY: "",
        ETCD_TOOLS_DIR: etcdToolsDir(),
        ...env,
      },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    return new Promise<{ status: number | null; stderr: string; aws: string }>((resolve) =>
      child.on("close", (status) => resolve({ status, stderr, aws: readFileSync(log, "utf8") })),
    );
  }

  const peerUrls = () =>
    etcdctl(members[0].clientUrl, "member", "list", "-w", "simple")
      .out.trim()
      .split("\n")
      .map((l) => l.split(", ")[3])
      .sort();

  it("tells departed peers from live ones, by name or by the instance at an address", async () => {
    const instances = [
      "10.0.1.10 running us-east-1b",
      "10.0.1.11 terminated us-east-1b",
      "10.0.1.12 shutting-down us-east-1c",
      "10.0.1.13 stopped us-east-1c",
      "10.0.1.14 running us-east-1a",
      // A zone no longer among the members, its control-plane instance still running (a scale-down whose
      // groups are being replaced): its member leaves through its own termination hook.
      "10.0.1.20 running us-east-1e",
      // Only a worker runs in us-east-1f, and us-east-1d's control-plane instance is going.
      "10.0.1.21 running us-east-1f worker",
      "10.0.1.22 shutting-down us-east-1d",
    ];
    const table: [string, boolean][] = [
      ["https://etcd-us-east-1b.internal.dev.k8s.local:2380", false],
      ["https://etcd-us-east-1d.internal.dev.k8s.local:2380", true],
      ["https://etcd-us-east-1e.internal.dev.k8s.local:2380", false],
      ["https://etcd-us-east-1f.internal.dev.k8s.local:2380", true],
      ["https://etcd-us-east-1g.internal.other.k8s.local:2380", true],
      ["https://10.0.1.10:2380", false],
      ["https://10.0.1.11:2380", true],
      ["https://10.0.1.12:2380", true],
      ["https://10.0.1.13:2380", false],
      // This node's own zone: the member it replaces.
      ["https://10.0.1.14:2380", true],
      // No instance of the cluster there.
      ["https://10.0.1.99:2380", true],
    ];
    for (const [peer, departed] of table) {
      const r = await onFirstNode(instances, "etcd_peer_departed", peer, "us-east-1a");
      expect(r.status, `${peer}: ${r.stderr}`).to.equal(departed ? 0 : 1);
    }
  });

  it("removes a departed name and an address whose instance is gone, keeps live members and itself", async () => {
    const [m1, m2, m3, m4, m5] = await startAt(5);
    const host = (m: EtcdMember) => m.peerUrl.split(/[/:]/)[3];
    // m4 is at the name of a zone the control plane no longer spans, its instance gone.
    await stopMember(m4);
    const m4Id = etcdctl(m1.clientUrl, "member", "list", "-w", "simple")
      .out.split("\n")
      .find((l) => l.includes(m4.peerUrl))!
      .split(", ")[0];
    const departedName = m4.peerUrl.replace(host(m4), "etcd-us-east-1d.internal.dev.k8s.local");
    expect(etcdctl(m1.clientUrl, "member", "update", m4Id, `--peer-urls=${departedName}`).status).to.equal(0);
    // m3's instance is gone: EC2 has nothing at its address.
    await stopMember(m3);
    const instances = [
      `${host(m1)} running us-east-1a`,
      `${host(m2)} running us-east-1b`,
      `${host(m5)} running us-east-1c`,
    ];
    const r = await onFirstNode(instances, "etcd_remove_departed");
    expect(r.status, r.stderr).to.equal(0);
    expect(peerUrls()).to.deep.equal([m1.peerUrl, m2.peerUrl, m5.peerUrl].sort());
    expect(r.aws).to.contain(
      `aws ec2 describe-instances --region us-east-1 --filters Name=private-ip-address,Values=${host(m3)} Name=tag:KubernetesCluster,Values=dev.k8s.local`,
    );
    // The three left take writes.
    expect(etcdctl(`${m1.clientUrl},${m2.clientUrl}`, "put", "after", "1").status).to.equal(0);
  });

  itFailsOnEtcd36(
    "a removal that would lose quorum is refused, tried again, logged, and does not fail the node",
    async () => {
      const [m1, m2, m3] = await startAt(3);
      const host = (m: EtcdMember) => m.peerUrl.split(/[/:]/)[3];
      // m2's instance is gone; m3 is live but down for now: removing m2 would leave one healthy member of two.
      await Promise.all([stopMember(m2), stopMember(m3)]);
      const r = await onFirstNode(
        [`${host(m1)} running us-east-1a`, `${host(m3)} running us-east-1c`],
        "etcd_remove_departed",
      );
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stderr.match(/refusing to remove/g)).to.have.length(2);
      expect(r.stderr).to.match(/ERROR: departed etcd members \w+ stay/);
      expect(peerUrls()).to.have.length(3);
    },
  );

  /** A directory whose etcdctl runs the built one, except `endpoint status`, which fails as it does when the member does not answer. */
  function etcdctlWithoutStatus(): string {
    const tools = mkdtempSync(join(dir, "etcd-tools-"));
    writeFileSync(
      join(tools, "etcdctl"),
      `#!/bin/bash\ncase "$*" in *"endpoint status"*) echo "Error: context deadline exceeded" >&2; exit 1;; esac\nexec "${join(etcdToolsDir(), "etcdctl")}" "$@"\n`,
    );
    chmodSync(join(tools, "etcdctl"), 0o755);
    return tools;
  }

  it("removes nothing, and fails, when its own member does not give its ID", async () => {
    const [m1, m2, m3] = await startAt(3);
    const host = (m: EtcdMember) => m.peerUrl.split(/[/:]/)[3];
    // m1 is at its address in this node's zone, where a member other than its own would be its predecessor.
    const r = await onFirstNodeWith(
      { ETCD_TOOLS_DIR: etcdctlWithoutStatus() },
      [`${host(m1)} running us-east-1a`, `${host(m2)} running us-east-1b`, `${host(m3)} running us-east-1c`],
      "etcd_remove_departed",
    );
    expect(r.status, r.stderr).to.not.equal(0);
    expect(peerUrls()).to.deep.equal([m1.peerUrl, m2.peerUrl, m3.peerUrl].sort());
  });

  it("settling its name removes nothing, and fails, when its own member does not give its ID", async () => {
    const [m1, ...others] = await startAt(5);
    // A rejoin: m1, this node's member, already holds its zone's name.
    const port = m1.peerUrl.split(":")[2];
    const named = `http://etcd-us-east-1a.internal.dev.k8s.local:${port}`;
    const m1Id = etcdctl(m1.clientUrl, "endpoint", "status", "-w", "simple").out.split(", ")[1];
    expect(etcdctl(m1.clientUrl, "member", "update", m1Id, `--peer-urls=${named}`).status).to.equal(0);
    const r = await onFirstNodeWith(
      { ETCD_TOOLS_DIR: etcdctlWithoutStatus(), ETCD_PEER_SCHEME: "http", ETCD_PEER_PORT: port, ETCD_PEER_CERT: "" },
      [],
      "etcd_member_settle",
    );
    expect(r.status, r.stderr).to.not.equal(0);
    expect(r.stderr).to.not.contain("before this one");
    expect(peerUrls()).to.deep.equal([named, ...others.map((m) => m.peerUrl)].sort());
  });

  it("takes no member at an address for departed while EC2 does not answer", async () => {
    const [m1, m2, m3] = await startAt(3);
    const host = (m: EtcdMember) => m.peerUrl.split(/[/:]/)[3];
    const pure = await onFirstNodeWith(
      { STUB_EC2_DOWN: "1" },
      [],
      "etcd_peer_departed",
      "https://10.0.1.11:2380",
      "us-east-1a",
    );
    expect(pure.status, pure.stderr).to.equal(1);
    const named = await onFirstNodeWith(
      { STUB_EC2_DOWN: "1" },
      [],
      "etcd_peer_departed",
      "https://etcd-us-east-1d.internal.dev.k8s.local:2380",
      "us-east-1a",
    );
    expect(named.status, named.stderr).to.equal(1);
    // m3 is down for now: were it taken for departed, the two healthy members would let it go.
    await stopMember(m3);
    const r = await onFirstNodeWith({ STUB_EC2_DOWN: "1" }, [], "etcd_remove_departed");
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.contain(`could not list the instances at ${host(m3)}: its etcd member is kept this time`);
    expect(peerUrls()).to.deep.equal([m1.peerUrl, m2.peerUrl, m3.peerUrl].sort());
  });

  it("keeps a member at a name no zone holds while a control-plane instance still runs in its zone", async () => {
    const [m1, m2, m3] = await startAt(3);
    const host = (m: EtcdMember) => m.peerUrl.split(/[/:]/)[3];
    // A scale-down: m3's zone left the member list, its instance not replaced yet (down for this test, so
    // that the two healthy members would let it go).
    await stopMember(m3);
    const m3Id = etcdctl(m1.clientUrl, "member", "list", "-w", "simple")
      .out.split("\n")
      .find((l) => l.includes(m3.peerUrl))!
      .split(", ")[0];
    const named = m3.peerUrl.replace(host(m3), "etcd-us-east-1e.internal.dev.k8s.local");
    expect(etcdctl(m1.clientUrl, "member", "update", m3Id, `--peer-urls=${named}`).status).to.equal(0);
    const r = await onFirstNode(
      [`${host(m1)} running us-east-1a`, `${host(m2)} running us-east-1b`, "10.0.1.30 running us-east-1e"],
      "etcd_remove_departed",
    );
    expect(r.status, r.stderr).to.equal(0);
    expect(peerUrls()).to.deep.equal([m1.peerUrl, m2.peerUrl, named].sort());
    expect(r.aws).to.contain(
      "aws ec2 describe-instances --region us-east-1 --filters Name=availability-zone,Values=us-east-1e Name=tag:KubernetesCluster,Values=dev.k8s.local Name=tag:k8s.io/role/control-plane,Values=1",
    );
  });
});
