/**
 * The API server's hardening (components/nodes/apiServerConfig.ts), judged on the real control plane of
 * realControlPlane.test.ts, started from the dev stack's own kubeadm configuration and the files its user data
 * installs: Secrets encrypted in etcd under keys the bootstrap keeps in SSM, and rotated as docs/operations.md
 * says; Pod Security Admission's defaults; anonymous requests limited; an audit log.
 */
import { expect } from "chai";
import { secretsKeyAlias } from "../../components/nodes/secretPaths";
import { AUDIT_LOG_DIR } from "../../components/nodes/nodeFacts";
import { requireBinary } from "./binaries";
import type { ControlPlane } from "./controlPlane";
import { waitFor } from "../waitFor";

/** What etcd holds for a Secret: its value's first bytes, as text. */
function storedSecret(cp: ControlPlane, etcdctl: string, namespace: string, name: string): string {
  const pki = "/etc/kubernetes/pki";
  return cp.host.must([
    etcdctl,
    "--endpoints=https://127.0.0.1:2379",
    `--cacert=${pki}/etcd/ca.crt`,
    `--cert=${pki}/apiserver-etcd-client.crt`,
    `--key=${pki}/apiserver-etcd-client.key`,
    "get",
    `/registry/secrets/${namespace}/${name}`,
    "--print-value-only",
  ]);
}

/** The key a stored Secret is encrypted with: `k8s:enc:secretbox:v1:<key name>:`, or undefined in plain text. */
const encryptedWith = (stored: string) => /^k8s:enc:secretbox:v1:([^:]+):/.exec(stored)?.[1];

/** The API server's successful reloads of its encryption configuration, from its own metrics. */
function encryptionReloads(cp: ControlPlane): number {
  const metrics = cp.kubectl(["get", "--raw", "/metrics"]);
  const line = metrics
    .split("\n")
    .find(
      (l) =>
        l.startsWith("apiserver_encryption_config_controller_automatic_reloads_total") &&
        l.includes('status="success"'),
    );
  return line ? Number(line.split(" ").pop()) : 0;
}

/** An anonymous request to the API server: its HTTP status. */
function anonymous(cp: ControlPlane, path: string): string {
  const server = /server: (\S+)/.exec(cp.host.must(["cat", "/etc/kubernetes/admin.conf"]))![1];
  return cp.host.must(["curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", `${server}${path}`]);
}

const privilegedPod = (namespace: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "privileged", namespace },
    spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10", securityContext: { privileged: true } }] },
  });

export function apiServerHardeningSuite(controlPlane: () => ControlPlane): void {
  describe("the API server's hardening", () => {
    let etcdctl: string;
    before(function () {
      etcdctl = requireBinary(this, "etcdctl");
    });

    it("stores Secrets encrypted with the cluster's key, which SSM keeps under the cluster's KMS key", async () => {
      const cp = controlPlane();
      const keys = (await cp.aws.parameters())[cp.encryptionKeysParameter];
      expect(keys, "the first control-plane node made the keys").to.include({
        type: "SecureString",
        keyId: secretsKeyAlias("dev.k8s.local"),
      });
      const [first] = keys.value.trim().split("\n");
      const [name, secret] = first.split(" ");
      expect(Buffer.from(secret, "base64")).to.have.length(32);
      cp.kubectl(["create", "secret", "generic", "at-rest", "--from-literal=password=hunter2"]);
      const stored = storedSecret(cp, etcdctl, "default", "at-rest");
      expect(encryptedWith(stored)).to.equal(name);
      expect(stored).to.not.contain("hunter2");
      // The written configuration holds the key; the command lines of the node never did (written through
      // a file: bootstrap/encryption.sh), and the API server's is a path. This host's API server: another
      // suite's, in a host of its own, may run beside it (the PID namespace is the machine's).
      const apiServer = cp.host.must([
        "bash",
        "-c",
        `for pid in $(pgrep -f '^[^ ]*kube-apiserver'); do
  if [ "$(readlink /proc/$pid/ns/net)" = "$(readlink /proc/self/ns/net)" ]; then tr '\\0' ' ' </proc/$pid/cmdline; fi
done`,
      ]);
      expect(apiServer).to.contain("--encryption-provider-config=/etc/kubernetes/apiserver/encryption.yaml");
      expect(apiServer).to.not.contain(secret);
    });

    it("rotates the key as docs/operations.md says: add, promote, write every Secret again, drop", async () => {
      const cp = controlPlane();
      const [old] = (await cp.aws.parameters())[cp.encryptionKeysParameter].value.trim().split("\n")[0].split(" ");
      // Each step, then every control-plane node writes its file again, and the API server reloads it (it
      // looks once a minute). With one API server, nothing reads between add and promote: one wait for both.
      const step = async (name: string, wait = true) => {
        const before = encryptionReloads(cp);
        cp.bootstrap("encryption", "rotate_encryption_key", name);
        cp.bootstrap("encryption", "write_encryption_config");
        if (!wait) return;
        await waitFor(
          `the API server to reload its encryption configuration after ${name}`,
          () => encryptionReloads(cp) > before,
          120_000,
        );
      };
      await step("add", false);
      const keys = async () =>
        (await cp.aws.parameters())[cp.encryptionKeysParameter].value
          .trim()
          .split("\n")
          .map((l) => l.split(" ")[0]);
      const [, added] = await keys();
      expect((await keys())[0], "the old key still writes").to.equal(old);
      await step("promote");
      expect(await keys()).to.deep.equal([added, old]);
      // Every Secret written again, as the runbook does it.
      cp.host.must([
        "bash",
        "-c",
        `"$1" --kubeconfig /etc/kubernetes/admin.conf get secrets -A -o json | "$1" --kubeconfig /etc/kubernetes/admin.conf replace -f - >/dev/null`,
        "rewrite",
        cp.kubectlPath,
      ]);
      const all = JSON.parse(cp.kubectl(["get", "secrets", "-A", "-o", "json"])).items as {
        metadata: { namespace: string; name: string };
      }[];
      expect(all.length).to.be.greaterThan(0);
      for (const s of all)
        expect(
          encryptedWith(storedSecret(cp, etcdctl, s.metadata.namespace, s.metadata.name)),
          s.metadata.name,
        ).to.equal(added);
      await step("drop");
      expect(await keys()).to.deep.equal([added]);
      // Without the old key every Secret still reads.
      expect(cp.kubectl(["get", "secret", "at-rest", "-o", "jsonpath={.data.password}"])).to.equal(
        Buffer.from("hunter2").toString("base64"),
      );
    });

    it("enforces the baseline Pod Security level outside kube-system, and warns at restricted", () => {
      const cp = controlPlane();
      const refused = cp.tryKubectl(["apply", "-f", "-"], privilegedPod("default"));
      expect(refused.status).to.not.equal(0);
      expect(refused.out).to.contain('violates PodSecurity "baseline:latest"');
      // kube-system, where every add-on runs, is exempt (the add-ons' own pods are admitted: see the add-on tests).
      const exempt = cp.tryKubectl(["apply", "--dry-run=server", "-f", "-"], privilegedPod("kube-system"));
      expect(exempt.status, exempt.out).to.equal(0);
      // A pod that passes baseline is admitted, with the restricted level's warning.
      const plain = cp.tryKubectl(["run", "plain", "--image=registry.k8s.io/pause:3.10", "--dry-run=server"]);
      expect(plain.status, plain.out).to.equal(0);
      expect(plain.out).to.contain('would violate PodSecurity "restricted:latest"');
    });

    it("answers anonymous requests only for the health checks", () => {
      const cp = controlPlane();
      for (const path of ["/readyz", "/livez", "/healthz"]) expect(anonymous(cp, path), path).to.equal("200");
      // Not even kubeadm's discovery document, which RBAC grants anonymous readers: no join uses it.
      for (const path of ["/api", "/version", "/apis", "/api/v1/namespaces/kube-public/configmaps/cluster-info"])
        expect(anonymous(cp, path), path).to.equal("401");
    });

    it("records a Secret read in the audit log, without its value, and no health check", async () => {
      const cp = controlPlane();
      cp.kubectl(["get", "secret", "at-rest", "-o", "name"]);
      const log = `${AUDIT_LOG_DIR}/audit.log`;
      type AuditEvent = { verb: string; level: string; objectRef?: { resource: string; name?: string } };
      const secretRead = () =>
        cp.host
          .must(["cat", log])
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as AuditEvent)
          .find((e) => e.verb === "get" && e.objectRef?.resource === "secrets" && e.objectRef.name === "at-rest");
      await waitFor("the Secret read in the audit log", () => secretRead() !== undefined);
      const read = secretRead()!;
      expect(read.level).to.equal("Metadata");
      expect(read).to.not.have.property("responseObject");
      expect(cp.host.must(["cat", log])).to.not.contain("hunter2");
      expect(cp.host.must(["cat", log])).to.not.contain('"requestURI":"/readyz');
    });
  });
}
