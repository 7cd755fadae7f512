// Stack config as the Pulumi CLI assembles it: project defaults, stack values, --path edits.
import { expect } from "chai";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import {
  loadStackConfig,
  overDefaults,
  parseConfigPath,
  projectDefaults,
  removePath,
  setJsonPath,
  setPath,
  stackConfigOver,
  stackFileConfig,
  toRuntimeConfig,
  UsageError,
} from "../../cli/plan/stackConfig";

/** A Pulumi.yaml and a stack file with these texts, in a directory of their own. */
function projectAndStack(projectYaml: string, stackYaml: string): { project: string; stack: string } {
  const dir = mkdtempSync(join(tmpdir(), "stack-"));
  const [project, stack] = [join(dir, "Pulumi.yaml"), join(dir, "Pulumi.s.yaml")];
  writeFileSync(project, projectYaml);
  writeFileSync(stack, stackYaml);
  return { project, stack };
}

describe("stack config", () => {
  it("parses config paths as pulumi config set --path does", () => {
    expect(parseConfigPath("networking.cilium.ipam")).to.deep.equal(["networking", "cilium", "ipam"]);
    expect(parseConfigPath("nodeGroups[1].name")).to.deep.equal(["nodeGroups", 1, "name"]);
    expect(parseConfigPath('cloudLabels["kubernetes.io/x"]')).to.deep.equal(["cloudLabels", "kubernetes.io/x"]);
    for (const bad of ["", "a..b", "[0]", "a[x]", "a[", 'a["x'] as const) {
      expect(() => parseConfigPath(bad), bad).to.throw(UsageError);
    }
  });

  it("coerces path leaves (booleans, integers) but keeps top-level values as strings", () => {
    const config: Record<string, unknown> = {};
    setPath(config, "networking.cilium.disableMasquerade", "true");
    setPath(config, "nodeGroups[0].maxSize", "8");
    setPath(config, "nodeGroups[0].name", "007x");
    setPath(config, "kubernetesVersion", "1.33.5");
    setPath(config, "aws:region", "eu-west-1");
    expect(config).to.deep.equal({
      "cilium-cluster:networking": { cilium: { disableMasquerade: true } },
      "cilium-cluster:nodeGroups": [{ maxSize: 8, name: "007x" }],
      "cilium-cluster:kubernetesVersion": "1.33.5",
      "aws:region": "eu-west-1",
    });
    expect(toRuntimeConfig(config)["cilium-cluster:nodeGroups"]).to.equal('[{"maxSize":8,"name":"007x"}]');
  });

  it("merges Pulumi.yaml defaults under the stack's values, key by key", () => {
    const { project, stack } = projectAndStack(
      "name: p\nconfig:\n  topology:\n    type: string\n    default: private\n  network:\n    type: object\n    default: {}\n",
      "config:\n  cilium-cluster:network:\n    cidr: 10.0.0.0/16\n",
    );
    expect(loadStackConfig(project, stack)).to.deep.equal({
      "cilium-cluster:topology": "private",
      "cilium-cluster:network": { cidr: "10.0.0.0/16" },
    });
  });

  it("gives each stack a deep copy of the project's defaults, which the plan reads once for several stacks", () => {
    const { project, stack } = projectAndStack(
      "name: p\nconfig:\n  network:\n    type: object\n    default:\n      cidr: 10.0.0.0/16\n",
      "config:\n  cilium-cluster:topology: public\n",
    );
    const defaults = projectDefaults(project);
    const a = stackConfigOver(defaults, stack);
    setPath(a, "network.cidr", "10.1.0.0/16");
    expect(a).to.deep.equal({ "cilium-cluster:network": { cidr: "10.1.0.0/16" }, "cilium-cluster:topology": "public" });
    expect(defaults).to.deep.equal({ "cilium-cluster:network": { cidr: "10.0.0.0/16" } });
  });

  it("sets JSON values as typed, at any depth", () => {
    const config: Record<string, unknown> = {};
    setJsonPath(config, "cloudLabels.costCenter", '"1234"');
    setJsonPath(config, "nodeGroups[0]", '{"name":"gpu","maxSize":2}');
    setJsonPath(config, "kubeProxy.enabled", "false");
    expect(config).to.deep.equal({
      "cilium-cluster:cloudLabels": { costCenter: "1234" },
      "cilium-cluster:nodeGroups": [{ name: "gpu", maxSize: 2 }],
      "cilium-cluster:kubeProxy": { enabled: false },
    });
    expect(() => setJsonPath(config, "cloudLabels.team", "platform")).to.throw(UsageError, "is not JSON");
  });

  it("removes a path as pulumi config rm --path does: a list item spliced, a top-level key back to its default", () => {
    const own: Record<string, unknown> = {
      "cilium-cluster:kubernetesVersion": "1.33.5",
      "cilium-cluster:clusterName": "a.k8s.local",
      "cilium-cluster:nodeGroups": [{ name: "a" }, { name: "b" }, { name: "c" }],
    };
    const defaults = { "cilium-cluster:kubernetesVersion": "1.35.4" };
    removePath(own, "kubernetesVersion");
    removePath(own, "clusterName");
    removePath(own, "nodeGroups[1]");
    expect(overDefaults(defaults, own)).to.deep.equal({
      "cilium-cluster:kubernetesVersion": "1.35.4",
      "cilium-cluster:nodeGroups": [{ name: "a" }, { name: "c" }],
    });
    expect(() => removePath(own, "nodeGroups[5]")).to.throw(UsageError, "has no nodeGroups[5]");
  });

  // pulumi/pulumi pkg/cmd/pulumi/config/config_set.go: `ps.Config.Set(key, v, path)` edits the stack file's
  // own config (ProjectStack.Config), never Pulumi.yaml's defaults, which apply key by key to what it lacks.
  it("edits the stack file's own values, as pulumi config set --path does: a path below a defaulted key replaces the default whole", () => {
    const { project, stack } = projectAndStack(
      "name: p\nconfig:\n  nodeGroups:\n    type: array\n    default:\n      - name: nodes\n        minSize: 2\n",
      "config:\n  aws:region: us-east-1\n",
    );
    const own = stackFileConfig(stack);
    setPath(own, "nodeGroups[0].minSize", "3");
    expect(own).to.deep.equal({ "aws:region": "us-east-1", "cilium-cluster:nodeGroups": [{ minSize: 3 }] });
    expect(overDefaults(projectDefaults(project), own)["cilium-cluster:nodeGroups"]).to.deep.equal([{ minSize: 3 }]);
  });
});
