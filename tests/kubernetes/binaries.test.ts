// The binaries the tests build are those the program deploys, and a missing one skips (or fails in CI).
import { expect } from "chai";
import { execFileSync } from "child_process";
import { existsSync, readdirSync, readFileSync } from "fs";
import { join } from "path";
import { kubeadmEtcd } from "../../config/validation/kubernetesUpgrade";
import { BUILD_SCRIPT, ETCD_VERSION, KUBERNETES_VERSION, missingBinary, requireBinary } from "./binaries";
import { renderedKubeadmFiles } from "./renderedKubeadm";

const TOOLS = join(__dirname, "..", "..", "tools");
const goMod = (component: string, version: string) => readFileSync(join(TOOLS, component, version, "go.mod"), "utf8");

describe("the Kubernetes binaries the tests build", () => {
  it("are built from k8s.io/kubernetes at the default Kubernetes version, each staging module at its release", () => {
    const mod = goMod("kubernetes", KUBERNETES_VERSION);
    expect(mod).to.match(new RegExp(`k8s\\.io/kubernetes ${KUBERNETES_VERSION.replace(/\./g, "\\.")}\\b`));
    const staging = `v0.${KUBERNETES_VERSION.split(".").slice(1).join(".")}`;
    const replaces = [...mod.matchAll(/^replace (\S+) => (\S+) (\S+)$/gm)];
    expect(replaces.length).to.be.greaterThan(25);
    for (const [, from, to, version] of replaces) expect([to, version]).to.deep.equal([from, staging]);
  });

  it("include kubeadm at the Kubernetes version of every example", async () => {
    const versions = new Set((await renderedKubeadmFiles()).map((f) => f.kubernetesVersion));
    for (const version of versions) {
      const dir = join(TOOLS, "kubernetes", version);
      expect(existsSync(join(dir, "go.mod")), `tools/kubernetes/${version}`).to.equal(true);
      expect(readFileSync(join(dir, "tools.go"), "utf8")).to.contain('"k8s.io/kubernetes/cmd/kubeadm"');
    }
  });

  it("include etcd, etcdctl and etcdutl of one etcd release", () => {
    const mod = goMod("etcd", ETCD_VERSION);
    for (const m of ["server", "etcdctl", "etcdutl"]) expect(mod).to.contain(`go.etcd.io/etcd/${m}/v3 ${ETCD_VERSION}`);
  });

  it("each built kubeadm pins the etcd catalogs/kubeadmEtcd.ts records for its release", function () {
    const releases = readdirSync(join(TOOLS, "kubernetes"));
    expect(releases.length).to.be.greaterThan(1);
    for (const release of releases) {
      const kubeadm = requireBinary(this, "kubeadm", release);
      const images = execFileSync(kubeadm, ["config", "images", "list", "--kubernetes-version", release], {
        encoding: "utf8",
      });
      const etcd = /registry\.k8s\.io\/etcd:(\S+)-0$/m.exec(images)?.[1];
      expect(etcd, release).to.equal(kubeadmEtcd(release.slice(1)));
    }
  });

  it("skip a test naming the build script when missing, and fail it when CI=true", () => {
    expect(missingBinary("kubeadm", "v0.0.0-never-built", { PATH: "" })).to.equal(
      `kubeadm v0.0.0-never-built is not built: run ${BUILD_SCRIPT}`,
    );
    expect(() => missingBinary("kubeadm", "v0.0.0-never-built", { CI: "true" })).to.throw(/required when CI=true/);
  });
});
