// kubeadm judges its configuration: `kubeadm config validate`, of the example's own Kubernetes version, on
// every InitConfiguration (with its ClusterConfiguration and KubeletConfiguration) and JoinConfiguration that
// every example renders, filled as the node fills them.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { clusterPki } from "../standins/pki";
import { requireDebianTool } from "../debianTools";
import { requireBinary } from "./binaries";
import { fillAsTheNode, generatedToken, renderedKubeadmFiles } from "./renderedKubeadm";

/** kubeadm's verdict on a configuration: its exit status and what it printed. */
function validate(kubeadm: string, text: string): { status: number | null; output: string } {
  const file = join(mkdtempSync(join(tmpdir(), "kubeadm-validate-")), "kubeadm.yaml");
  writeFileSync(file, text);
  const r = spawnSync(kubeadm, ["config", "validate", "--config", file], { encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("kubeadm config validate on every rendered kubeadm configuration", function () {
  this.timeout(300_000);

  it("accepts every example's init and join configurations, placeholders filled", async function () {
    requireDebianTool(this, "openssl", "openssl");
    const files = await renderedKubeadmFiles();
    expect(files.filter((f) => f.name.endsWith("-init.yaml")).length).to.be.greaterThan(6);
    for (const file of files) {
      const kubeadm = requireBinary(this, "kubeadm", file.kubernetesVersion);
      const filled = fillAsTheNode(file.text, {
        bootstrapToken: generatedToken(kubeadm),
        caCert: clusterPki()["ca.crt"],
        nodeIp: "10.0.1.10",
      });
      const verdict = validate(kubeadm, filled);
      expect(verdict.status, `${file.example}/${file.name}: ${verdict.output}`).to.equal(0);
    }
  });

  it("refuses a rendered configuration with a field kubeadm does not know, or a malformed token", async function () {
    requireDebianTool(this, "openssl", "openssl");
    const dev = (await renderedKubeadmFiles()).filter((f) => f.example === "dev");
    const file = dev.find((f) => f.name.endsWith("-init.yaml"))!;
    // The token is a worker's to fill: kubeadm init makes the cluster's first one itself.
    const join = dev.find((f) => f.name === "kubeadm/nodes-template-join.yaml")!;
    const kubeadm = requireBinary(this, "kubeadm", file.kubernetesVersion);
    const values = { bootstrapToken: generatedToken(kubeadm), caCert: clusterPki()["ca.crt"], nodeIp: "10.0.1.10" };
    expect(validate(kubeadm, fillAsTheNode(file.text, values)).status).to.equal(0);
    const unknownField = file.text.replace(
      "kind: ClusterConfiguration\n",
      "kind: ClusterConfiguration\napiServr: {}\n",
    );
    expect(validate(kubeadm, fillAsTheNode(unknownField, values)).status).to.not.equal(0);
    expect(validate(kubeadm, fillAsTheNode(join.text, values)).status).to.equal(0);
    expect(
      validate(kubeadm, fillAsTheNode(join.text, { ...values, bootstrapToken: "not-a-token" })).status,
    ).to.not.equal(0);
  });
});
