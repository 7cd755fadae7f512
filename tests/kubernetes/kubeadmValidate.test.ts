// kubeadm judges its configuration: `kubeadm config validate`, of the example's own Kubernetes version, on
// every InitConfiguration (with its ClusterConfiguration and KubeletConfiguration) and JoinConfiguration that
// every example renders, filled as the node fills them.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { JOIN_CREDENTIAL_FILE } from "../../components/nodes/nodeFacts";
import { fillAsTheNode, renderedKubeadmFiles } from "./renderedKubeadm";
import { requireBinary } from "./binaries";

/**
 * kubeadm's verdict on a configuration: its exit status and what it printed. A join's discovery file must
 * exist where kubeadm runs (validation.go ValidateDiscoveryKubeConfigPath stats it): the node writes it just
 * before kubeadm join (bootstrap/kubeadm.sh); here a scratch file stands in for it, at the path `credential`
 * gives (none: the path is left as rendered).
 */
function validate(kubeadm: string, text: string, credential?: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "kubeadm-validate-"));
  const file = join(dir, "kubeadm.yaml");
  let config = text;
  if (credential !== undefined) {
    const path = join(dir, credential);
    writeFileSync(path, "apiVersion: v1\nkind: Config\n");
    config = text.split(JOIN_CREDENTIAL_FILE).join(path);
  }
  writeFileSync(file, config);
  const r = spawnSync(kubeadm, ["config", "validate", "--config", file], { encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("kubeadm config validate on every rendered kubeadm configuration", function () {
  this.timeout(300_000);

  it("accepts every example's init and join configurations, placeholders filled", async function () {
    const files = await renderedKubeadmFiles();
    expect(files.filter((f) => f.name.endsWith("-init.yaml")).length).to.be.greaterThan(6);
    for (const file of files) {
      const kubeadm = requireBinary(this, "kubeadm", file.kubernetesVersion);
      const filled = fillAsTheNode(file.text, { nodeIp: "10.0.1.10" });
      const verdict = validate(kubeadm, filled, "join-credential.conf");
      expect(verdict.status, `${file.example}/${file.name}: ${verdict.output}`).to.equal(0);
    }
  });

  it("refuses a rendered configuration with a field kubeadm does not know, or a discovery file it cannot use", async function () {
    const dev = (await renderedKubeadmFiles()).filter((f) => f.example === "dev");
    const file = dev.find((f) => f.name.endsWith("-init.yaml"))!;
    const join = dev.find((f) => f.name === "kubeadm/nodes-join.yaml")!;
    const kubeadm = requireBinary(this, "kubeadm", file.kubernetesVersion);
    const values = { nodeIp: "10.0.1.10" };
    expect(validate(kubeadm, fillAsTheNode(file.text, values)).status).to.equal(0);
    const unknownField = file.text.replace(
      "kind: ClusterConfiguration\n",
      "kind: ClusterConfiguration\napiServr: {}\n",
    );
    expect(validate(kubeadm, fillAsTheNode(unknownField, values)).status).to.not.equal(0);
    const filledJoin = fillAsTheNode(join.text, values);
    expect(filledJoin).to.contain(`kubeConfigPath: ${JOIN_CREDENTIAL_FILE}`);
    expect(validate(kubeadm, filledJoin, "join-credential.conf").status).to.equal(0);
    // No file at the path (as on a node before the bootstrap wrote it): "not a valid HTTPS URL or a file on disk".
    const missing = validate(kubeadm, filledJoin.split(JOIN_CREDENTIAL_FILE).join("/nonexistent/join-credential.conf"));
    expect(missing.status).to.not.equal(0);
    expect(missing.output).to.contain("not a valid HTTPS URL or a file on disk");
    // A URL other than https.
    const http = validate(kubeadm, filledJoin.split(JOIN_CREDENTIAL_FILE).join("http://api.example.test/credential"));
    expect(http.status).to.not.equal(0);
    expect(http.output).to.contain("if a URL is used, the scheme must be https");
  });
});
