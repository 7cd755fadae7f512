// bootstrap/node-credentials.sh: the control plane's issuer of each worker instance's credential for its own
// node name. Its decision (credential_work) as tables run through bash itself; one round of the issuer
// (issue_node_credentials) through the control plane's own rendered script, with aws, kubectl, kubeadm and
// instance metadata standing in on PATH: what it writes, where, tagged for which AWS identity, and what
// it never puts on a command line. The worker's side (join-credential.sh) runs in bootstrapRun.test.ts.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { nodeRoleName } from "../../components/iam/roleNames";
import { bootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { modulePath } from "../../components/nodes/bootstrapModuleFiles";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { factsHeader } from "../../components/nodes/shellHeader";
import { renderBootstrapScript } from "../../components/nodes/userData";
import {
  INSTANCE_CREDENTIAL_SESSION_TAG,
  instanceCredentialPrefix,
  secretsKeyAlias,
} from "../../components/nodes/secretPaths";
import { TIMEOUTS } from "../../components/timeouts";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";

const CLUSTER = "dev.k8s.local";
const PREFIX = instanceCredentialPrefix(CLUSTER);

/** credential_work NODES ISSUED with the worker instances ("ID NAME" lines) on its input: its lines. */
function work(instances: string[], nodes: string[], issued: string[]): string[] {
  const r = spawnSync(
    "bash",
    [
      "-c",
      `set -euo pipefail; ${factsHeader()}\nsource "${modulePath("lib")}"; source "${modulePath("node-credentials")}"; credential_work "$@"`,
      "bash",
      nodes.join("\n"),
      issued.join("\n"),
    ],
    {
      input: instances.map((i) => `${i}\n`).join(""),
      encoding: "utf8",
      env: { ...process.env, NODE_CREDENTIALS_PREFIX: PREFIX },
    },
  );
  expect(r.status, r.stderr).to.equal(0);
  return r.stdout.split("\n").filter(Boolean);
}

describe("bootstrap/node-credentials.sh", () => {
  describe("credential_work: which instances get a credential, which parameters go", () => {
    const node = (n: number) => `ip-10-0-1-${n}.ec2.internal`;
    const parameter = (id: string) => `${PREFIX}${id}`;
    // The control-plane node itself, whose Node exists: never an instance listed here (workers only).
    const controlPlane = node(10);

    it("a new instance, with no Node and no parameter, is issued one for its own name", () => {
      expect(work([`i-new ${node(20)}`], [controlPlane], [])).to.deep.equal([`issue i-new ${node(20)}`]);
    });

    it("an instance EC2 has not named yet (no private DNS name before it runs) waits for the next round", () => {
      expect(work(["i-pending", "i-unnamed None"], [controlPlane], [])).to.deep.equal([]);
    });

    it("an instance whose Node exists is issued nothing, and its parameter is deleted", () => {
      expect(work([`i-joined ${node(30)}`], [controlPlane, node(30)], [])).to.deep.equal([]);
      expect(work([`i-joined ${node(30)}`], [controlPlane, node(30)], [parameter("i-joined")])).to.deep.equal([
        `delete ${parameter("i-joined")}`,
      ]);
    });

    it("an instance issued one that has not joined yet is left alone: no second credential, nothing deleted", () => {
      expect(work([`i-waiting ${node(40)}`], [controlPlane], [parameter("i-waiting")])).to.deep.equal([]);
    });

    it("the parameter of an instance that is gone (terminated, or no worker of the cluster any more) is deleted", () => {
      expect(work([], [controlPlane], [parameter("i-gone")])).to.deep.equal([`delete ${parameter("i-gone")}`]);
      // No instance, no Node, no parameter: nothing at all; blank lines (an empty answer) are nothing.
      expect(work([""], [""], [""])).to.deep.equal([]);
    });

    it("names are compared lower-cased: EC2's DNS name in capitals is the Node's name", () => {
      const upper = "IP-10-0-1-50.EC2.INTERNAL";
      expect(work([`i-upper ${upper}`], [controlPlane, node(50)], [parameter("i-upper")])).to.deep.equal([
        `delete ${parameter("i-upper")}`,
      ]);
      // Issued for the name the kubelet registers (node_name lower-cases it too).
      expect(work([`i-upper ${upper}`], [controlPlane], [])).to.deep.equal([`issue i-upper ${node(50)}`]);
    });

    it("all at once: issues in the instances' order, then the deletions", () => {
      expect(
        work(
          [`i-new ${node(20)}`, `i-joined ${node(30)}`, `i-waiting ${node(40)}`, `i-other ${node(60)}`],
          [controlPlane, node(30)],
          [parameter("i-joined"), parameter("i-waiting"), parameter("i-gone")],
        ),
      ).to.deep.equal([
        `issue i-new ${node(20)}`,
        `issue i-other ${node(60)}`,
        `delete ${parameter("i-joined")}`,
        `delete ${parameter("i-gone")}`,
      ]);
    });
  });

  describe("issue_node_credentials: one round of the issuer, as node-credentials.service runs it", () => {
    const ROLE_ID = "AROAEXAMPLENODEROLE01";
    const spec = validateConfig(baseConfig(), REGION).spec;
    const config = bootstrapConfig(
      spec,
      instanceGroups(spec).find((g) => g.role === "control-plane")!,
      { internal: "api.internal.test", public: "api.test", caParameter: "/cluster-ca" },
      {
        initRecord: "/record",
        restoreRequest: "/restore",
        backupBucket: "backups",
        encryptionKeys: "/encryption-keys",
        sharedPki: "/pki/",
        adminRoleArn: "arn:aws:iam::000000000000:role/admins.dev.k8s.local",
      },
    );

    /**
     * The control plane's script run with issue_node_credentials, against stand-ins that log each call
     * ("tool args") and answer from the account: EC2's worker instances, SSM's parameters under the prefix,
     * the nodes' role, the cluster's Nodes (with apiDown, the API does not answer); kubeadm prints a kubeconfig
     * as `kubeadm kubeconfig user` does, its certificate "CERTIFICATE of NAME", its key "KEY SECRET-<n>"
     * (base64, as kubeadm embeds them). What put-parameter wrote is kept by name (read from its file://, as the
     * CLI does).
     */
    function issue(account: { instances: string[]; nodes: string[]; issued: string[]; apiDown?: boolean }) {
      const dir = mkdtempSync(join(tmpdir(), "issuer-"));
      const bin = join(dir, "bin");
      const written = join(dir, "written");
      const root = join(dir, "root");
      for (const d of [bin, written, root]) mkdirSync(d);
      writeFileSync(join(dir, "instances"), account.instances.map((i) => `${i.replace(" ", "\t")}\n`).join(""));
      writeFileSync(join(dir, "nodes"), account.nodes.map((n) => `${n}\n`).join(""));
      writeFileSync(join(dir, "issued"), account.issued.join("\t") + (account.issued.length ? "\n" : ""));
      const tool = (name: string, body: string) =>
        writeFileSync(join(bin, name), `#!/bin/bash\necho "${name} $*" >>"${dir}/calls"\n${body}\n`, { mode: 0o755 });
      tool(
        "aws",
        `case "$1 $2" in
"ec2 describe-instances") cat "${dir}/instances";;
"ssm get-parameters-by-path") cat "${dir}/issued";;
"iam get-role") [ "$3 $4" = "--role-name ${nodeRoleName(CLUSTER)}" ] && echo ${ROLE_ID};;
"ssm put-parameter")
  while [ $# -gt 0 ]; do case "$1" in --name) name=$2;; --value) value=$2;; esac; shift; done
  [[ $value == file://* ]] || exit 252
  mkdir -p "${written}/\${name%/*}" && cp "\${value#file://}" "${written}/$name";;
"ssm delete-parameter") ;;
*) exit 252;;
esac`,
      );
      tool(
        "kubectl",
        `[ "$1 $2 $3" = "--kubeconfig ${root}/etc/kubernetes/admin.conf --request-timeout=10s" ] || exit 1
${account.apiDown ? 'echo "The connection to the server was refused" >&2; exit 1' : ""}
[ "$4 $5 $6" = "get nodes -o" ] && [ "$7" = 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}' ] && cat "${dir}/nodes"`,
      );
      // kubeadm's configuration it was given is kept, to show what was filled in.
      tool(
        "kubeadm",
        `[ "$1 $2" = "kubeconfig user" ] || exit 1
while [ $# -gt 0 ]; do case "$1" in --config) cp "$2" "${dir}/signed-with"; echo "$2" >>"${dir}/configs";; --client-name) client=$2;; esac; shift; done
printf 'apiVersion: v1\\nclusters:\\n- cluster:\\n    certificate-authority-data: Q0E=\\n    server: https://api:443\\n  name: kubernetes\\nusers:\\n- name: %s\\n  user:\\n    client-certificate-data: %s\\n    client-key-data: %s\\n' \\
  "$client" "$(echo "CERTIFICATE of $client" | base64 -w0)" "$(echo "KEY SECRET-$RANDOM$RANDOM" | base64 -w0)"`,
      );
      // Instance metadata, for the init configuration's placeholders: this control-plane node's address and name.
      tool(
        "curl",
        `case "\${*: -1}" in
*/api/token) echo token;;
*/meta-data/local-ipv4) echo 10.0.1.10;;
*/meta-data/local-hostname) echo ip-10-0-1-10.ec2.internal;;
*) exit 22;;
esac`,
      );
      const script = join(dir, "script");
      writeFileSync(script, renderBootstrapScript(config));
      const r = spawnSync("bash", [script, "issue_node_credentials"], {
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BOOTSTRAP_ROOT: root, BOOTSTRAP_RETRY_DELAY: "0" },
      });
      const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), "utf8") : "");
      return {
        status: r.status,
        stderr: r.stderr,
        calls: read("calls").split("\n").filter(Boolean),
        written: (name: string) => read(join("written", name)),
        signedWith: read("signed-with"),
        configs: read("configs").split("\n").filter(Boolean),
      };
    }

    it("writes each waiting instance's credential to its own parameter, tagged for that instance's role session alone, and deletes the stale ones", () => {
      const round = issue({
        instances: [
          "i-0new1 ip-10-0-1-20.ec2.internal",
          "i-0new2 IP-10-0-1-21.EC2.INTERNAL",
          "i-0joined ip-10-0-1-30.ec2.internal",
          "i-0down ip-10-0-1-40.ec2.internal",
        ],
        // i-0down's Node is there, whatever its state: no credential readable from its metadata while it serves.
        nodes: ["ip-10-0-1-10.ec2.internal", "ip-10-0-1-30.ec2.internal", "ip-10-0-1-40.ec2.internal"],
        issued: [`${PREFIX}i-0joined`, `${PREFIX}i-0gone`],
      });
      expect(round.status, round.stderr).to.equal(0);
      // The issued parameters looked at before the instances: one another control-plane node creates for an
      // instance this round has not seen is not taken for a gone instance's. Nothing read decrypted.
      expect(round.calls[0]).to.match(/^aws ssm get-parameters-by-path /);
      // The worker instances of this cluster that are starting or running.
      expect(round.calls[1]).to.equal(
        "aws ec2 describe-instances --region us-east-1 --output text --filters Name=tag:KubernetesCluster,Values=dev.k8s.local " +
          "Name=tag:k8s.io/role/node,Values=1 Name=instance-state-name,Values=pending,running " +
          "--query Reservations[].Instances[].[InstanceId,PrivateDnsName]",
      );
      expect(round.calls.filter((c) => c.startsWith("aws ssm get-parameters-by-path"))).to.deep.equal([
        `aws ssm get-parameters-by-path --region us-east-1 --path ${PREFIX.replace(/\/$/, "")} --query Parameters[].Name --output text`,
      ]);
      expect(round.calls.join("\n")).not.to.contain("--with-decryption");
      // The role's id asked once for the round, however many instances wait.
      expect(round.calls.filter((c) => c.startsWith("aws iam get-role"))).to.have.length(1);
      // Each credential signed for the instance's own node name, in the nodes' group, valid the credential's minutes.
      expect(
        round.calls.filter((c) => c.startsWith("kubeadm ")).map((c) => c.replace(/--config \S+ /, "")),
      ).to.deep.equal(
        ["ip-10-0-1-20.ec2.internal", "ip-10-0-1-21.ec2.internal"].map(
          (name) =>
            `kubeadm kubeconfig user --client-name system:node:${name} --org system:nodes ` +
            `--validity-period ${TIMEOUTS.bootstrapScripts.nodeCredentialMinutes}m`,
        ),
      );
      // ... with this node's kubeadm configuration, filled from its metadata, in a file gone once signed.
      expect(round.signedWith).to.contain("kind: ClusterConfiguration");
      expect(round.signedWith).to.contain('name: "ip-10-0-1-10.ec2.internal"');
      expect(round.signedWith).not.to.match(/@[A-Z_]+@/);
      for (const config of round.configs) expect(existsSync(config), config).to.equal(false);
      // Written through a file, as a SecureString under the cluster's key, never over an existing one, tagged
      // <role id>:<instance id>: IAM's aws:userid of that instance's role session, which the node role's read
      // of the parameter is conditioned on.
      const puts = round.calls.filter((c) => c.startsWith("aws ssm put-parameter"));
      expect(puts.map((c) => c.replace(/file:\/\/\S+/, "file://<file>"))).to.deep.equal(
        ["i-0new1", "i-0new2"].map(
          (id) =>
            `aws ssm put-parameter --region us-east-1 --name ${PREFIX}${id} --type SecureString ` +
            `--key-id ${secretsKeyAlias(CLUSTER)} --value file://<file> ` +
            `--tags Key=${INSTANCE_CREDENTIAL_SESSION_TAG},Value=${ROLE_ID}:${id}`,
        ),
      );
      // The file held it only for the call.
      for (const put of puts) expect(existsSync(/--value file:\/\/(\S+)/.exec(put)![1]), put).to.equal(false);
      for (const [id, name] of [
        ["i-0new1", "ip-10-0-1-20.ec2.internal"],
        ["i-0new2", "ip-10-0-1-21.ec2.internal"],
      ]) {
        const value = round.written(`${PREFIX}${id}`);
        // The certificate and key only: the CA's certificate and the API's address are the worker's to add.
        expect(value, id).to.match(new RegExp(`^CERTIFICATE of system:node:${name}\\nKEY SECRET-\\d+$`));
        // The key itself is on no command line, where every user of the node could read it.
        expect(round.calls.join("\n"), id).not.to.contain(value.split("\n")[1]);
      }
      // The joined instance's credential and the gone instance's go; the joined one gets none again.
      expect(round.calls.filter((c) => c.startsWith("aws ssm delete-parameter"))).to.deep.equal(
        ["i-0joined", "i-0gone"].map((id) => `aws ssm delete-parameter --region us-east-1 --name ${PREFIX}${id}`),
      );
    });

    it("with nothing waiting, signs nothing and asks IAM nothing; a failed look at the cluster fails the round", () => {
      const idle = issue({
        instances: ["i-0waiting ip-10-0-1-40.ec2.internal"],
        nodes: [],
        issued: [`${PREFIX}i-0waiting`],
      });
      expect(idle.status, idle.stderr).to.equal(0);
      expect(idle.calls.filter((c) => /^(kubeadm|aws iam|aws ssm (put|delete)-parameter) /.test(c))).to.deep.equal([]);
      // Without the cluster's Nodes, every instance would look new: the round stops before deciding anything.
      const down = issue({ instances: ["i-0new1 ip-10-0-1-20.ec2.internal"], nodes: [], issued: [], apiDown: true });
      expect(down.status).to.not.equal(0);
      expect(down.calls.filter((c) => /^(kubeadm|aws iam|aws ssm (put|delete)-parameter) /.test(c))).to.deep.equal([]);
    });
  });
});
