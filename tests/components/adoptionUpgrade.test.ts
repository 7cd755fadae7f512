// Upgrading a stack created before the init record, end to end on the stand-ins: the control-plane node that
// replaces the old one (refreshed old-first) boots the real bootstrap (tests/standins/node.ts) with what
// adoption left in SSM and S3, or without it (the behaviour before adoption existed).
import { expect } from "chai";
import { Server } from "http";
import { adoptExistingCluster } from "../../components/controlPlane/existingClusterAdoption";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { renderUserData } from "../../components/nodes/userData";
import type { ClusterSpec } from "../../spec/types";
import { requireDebianTool } from "../debianTools";
import { specWith } from "../fixtures";
import { ACCOUNT, AdoptionAws } from "../standins/adoptionAws";
import { makeSecrets, newNode, runService, runUserData, startImds } from "../standins/node";

const RECORD = "/cilium-cluster/dev.k8s.local/control-plane/initialized-test";
const NEVER = "1000000";

describe("upgrading a stack created before the init record: the replacement control-plane node", function () {
  this.timeout(180000);
  let imds: Server;
  let imdsUrl: string;
  let secrets: { dir: string };

  before(async function () {
    requireDebianTool(this, "openssl", "openssl");
    ({ server: imds, url: imdsUrl } = await startImds(() => "us-east-1a"));
    secrets = makeSecrets();
  });
  after(() => imds?.close());

  /** What adoption leaves behind for the old control-plane node's cluster: the record and the snapshot's key. */
  async function adopted(): Promise<{ record: string; key: string }> {
    const aws = new AdoptionAws({
      instances: [
        {
          id: "i-0old",
          state: "running",
          tags: { KubernetesCluster: "dev.k8s.local", "k8s.io/role/control-plane": "1" },
        },
      ],
      // The snapshot script's last line (its real run: tests/etcd/adoptionSnapshot.test.ts).
      command: { env: process.env },
    });
    const said = await adoptExistingCluster(
      {
        region: "us-east-1",
        accountId: ACCOUNT,
        clusterName: "dev.k8s.local",
        initRecord: RECORD,
        script: "echo uploaded etcd snapshot etcd/20261130T180000Z.db",
        managedTimeoutSeconds: 60,
        commandTimeoutSeconds: 60,
        pollSeconds: 0.01,
      },
      aws,
    );
    return { record: aws.parameters.get(RECORD)!, key: said.split(" ").pop()! };
  }

  /** The replacement boots: no member's data on its new volume; `record` and `snapshot` as adoption left them. */
  async function replacement(spec: ClusterSpec, group: string, env: Record<string, string>, record?: string) {
    const userData = renderUserData(
      bootstrapConfig(
        spec,
        instanceGroups(spec).find((g) => g.name === group)!,
        { internal: "api.example.test", public: "api.example.com" },
        { initRecord: RECORD, backupBucket: "etcd-backups-test", privateZoneId: "ZTEST" },
      ),
    );
    const node = newNode({
      imdsUrl,
      secrets: secrets.dir,
      kubernetesVersion: /^\s*KUBERNETES_VERSION='([^']*)'$/m.exec(userData)![1],
      env: { API_WAIT_TRIES: "1", ...env },
      parameters: record ? { [RECORD]: record } : {},
    });
    expect((await runUserData(node, userData)).status).to.equal(0);
    const service = await runService(node, 1);
    // What kubeadm did to the cluster (init or join), not its read-only queries (config images list).
    const kubeadm = node
      .log()
      .split("\n")
      .filter((l) => /^kubeadm (init|join) /.test(l));
    return { node, service, kubeadm };
  }

  it("without adoption (the behaviour before it), a lone control-plane node's replacement creates a new, empty cluster", async () => {
    const { node, service, kubeadm } = await replacement(specWith({}), "control-plane-us-east-1a", {
      STANDIN_API_READY_AFTER: NEVER,
    });
    expect(service.status, service.stderr).to.equal(0);
    expect(kubeadm).to.deep.equal([`kubeadm init --config ${node.root}/etc/kubernetes/kubeadm.yaml`]);
    expect(node.log()).not.to.contain("snapshot restore");
    expect(node.log()).to.contain(`aws ssm put-parameter --region us-east-1 --name ${RECORD}`);
  });

  it("after adoption, it restores the snapshot adoption took (record: yes, API: down, volume: empty, snapshot: yes)", async () => {
    const { record, key } = await adopted();
    expect(record).to.match(/^adopted /);
    const { node, service, kubeadm } = await replacement(
      specWith({}),
      "control-plane-us-east-1a",
      { STANDIN_API_READY_AFTER: NEVER, STANDIN_NEWEST_SNAPSHOT: key },
      record,
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(node.log()).to.contain(`aws s3 cp --region us-east-1 --only-show-errors s3://etcd-backups-test/${key}`);
    expect(node.log()).to.match(/^etcdutl snapshot restore /m);
    // kubeadm init on the restored data (the rejoin path), never on an empty directory; the record is kept.
    expect(kubeadm).to.deep.equal([
      `kubeadm init --config ${node.root}/etc/kubernetes/kubeadm.yaml --ignore-preflight-errors=DirAvailable--var-lib-etcd-data`,
    ]);
    expect(node.log()).not.to.contain("put-parameter");
  });

  it("after adoption, with three members, the first zone's replacement joins through the two that answer", async () => {
    const { record, key } = await adopted();
    const { node, service, kubeadm } = await replacement(
      specWith({ controlPlane: { count: 3 } }),
      "control-plane-us-east-1a",
      { STANDIN_NEWEST_SNAPSHOT: key },
      record,
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(kubeadm).to.deep.equal([`kubeadm join --config ${node.root}/etc/kubernetes/kubeadm.yaml`]);
    expect(node.log()).not.to.contain("snapshot restore");
    expect(node.log()).not.to.contain("put-parameter");
  });

  it("after adoption, with three members, the first zone's replacement joins even when the API misses its probe", async () => {
    const { record, key } = await adopted();
    // The old members of the other zones run on their root disks: no member volume is in use anywhere else.
    const { node, kubeadm } = await replacement(
      specWith({ controlPlane: { count: 3 } }),
      "control-plane-us-east-1a",
      { STANDIN_API_READY_AFTER: NEVER, STANDIN_NEWEST_SNAPSHOT: key, STANDIN_OTHER_CONTROL_PLANE: "i-0oldb i-0oldc" },
      record,
    );
    expect(node.log()).to.contain("aws ec2 describe-instances");
    expect(node.log()).not.to.contain("snapshot restore");
    expect(kubeadm.filter((l) => l.startsWith("kubeadm init"))).to.deep.equal([]);
    expect(node.log()).not.to.contain("put-parameter");
  });

  it("it still restores beside new control-plane instances: their volumes attached, holding no member", async () => {
    const { record, key } = await adopted();
    const { node, service } = await replacement(
      specWith({ controlPlane: { count: 3 } }),
      "control-plane-us-east-1a",
      {
        STANDIN_API_READY_AFTER: NEVER,
        STANDIN_NEWEST_SNAPSHOT: key,
        // New instances of the other zones, their volumes attached and marked joining (no member's data).
        STANDIN_OTHER_CONTROL_PLANE: "i-0newb i-0newc",
        STANDIN_OTHER_VOLUMES: "vol-b\tin-use\ti-0newb\tjoining\nvol-c\tin-use\ti-0newc\tjoining",
      },
      record,
    );
    expect(service.status, service.stderr).to.equal(0);
    expect(node.log()).to.match(/^etcdutl snapshot restore /m);
  });
});
