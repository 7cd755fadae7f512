// `npm run plan` through its entry points: main() for every option, and the script itself for exit codes.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from "fs";
import { join, relative } from "path";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { run, scratch } from "./planCli";

function readTree(dir: string, prefix = ""): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = join(prefix, entry.name);
    if (entry.isDirectory()) Object.assign(files, readTree(dir, rel));
    else files[rel] = readFileSync(join(dir, rel), "utf8");
  }
  return files;
}

describe("npm run plan", () => {
  it("prints the dev stack's resource tree and a summary per type", async () => {
    const { code, out } = await run();
    expect(code).to.equal(0);
    expect(out).to.match(/^ \+ {2}pulumi:pulumi:Stack\s+cilium-cluster-dev$/m);
    expect(out).to.match(/├─ cilium-cluster:network:ClusterNetwork\s+network/);
    expect(out).to.match(/│ {2}├─ aws:ec2\/vpc:Vpc\s+network-vpc/);
    expect(out).to.match(/^Resources: \d+ to create$/m);
    expect(out).to.match(/^ +2 aws:ec2\/launchTemplate:LaunchTemplate$/m);
  });

  it("--config-file plans any stack file, named after it", async () => {
    const { code, out } = await run("--config-file", join(PROJECT_DIR, "examples", "Pulumi.public.yaml"));
    expect(code).to.equal(0);
    expect(out).to.match(/cilium-cluster-public/);
    expect(out).not.to.match(/NatGateway/);
  });

  it("--config-file takes a relative path from where npm run was typed (INIT_CWD), not the package's directory", async () => {
    const before = process.env.INIT_CWD;
    process.env.INIT_CWD = join(PROJECT_DIR, "examples");
    try {
      const { code, out, err } = await run("--config-file", "Pulumi.public.yaml");
      expect(code, err).to.equal(0);
      expect(out).to.match(/cilium-cluster-public/);
    } finally {
      if (before === undefined) delete process.env.INIT_CWD;
      else process.env.INIT_CWD = before;
    }
  });

  it("--set applies pulumi config set --path edits with the CLI's coercion", async () => {
    const { code, out } = await run("--set", "controlPlane.count=3", "--set", "nodeGroups[1].name=gpu");
    expect(code).to.equal(0);
    expect(out.match(/─ cilium-cluster:nodes:NodeLaunchTemplate/g)).to.have.length(5);
  });

  it("--set edits the stack file's own values, as the CLI does: a path below a key the stack leaves to Pulumi.yaml's default replaces it whole", async () => {
    // Pulumi.crd.yaml sets no nodeGroups: pulumi config set --path writes nodeGroups: [{minSize: 3}] into it.
    const crd = join(PROJECT_DIR, "examples", "Pulumi.crd.yaml");
    expect(readFileSync(crd, "utf8")).not.to.contain("nodeGroups");
    const { code, err } = await run("--config-file", crd, "--set", "nodeGroups[0].minSize=3");
    expect(code).to.equal(1);
    expect(err).to.contain("nodeGroups[0].name: Required value");
  });

  it("--set-json sets a value typed as written, where --set coerces as the CLI does", async () => {
    const coerced = await run("--set", "cloudLabels.costCenter=1234");
    expect(coerced.code).to.equal(1);
    expect(coerced.err).to.contain("cloudLabels.costCenter");
    const typed = await run(
      "--diff",
      "--set-json",
      'cloudLabels.costCenter="1234"',
      "--set-json",
      "nodeGroups[0].maxSize=6",
    );
    expect(typed.code).to.equal(0);
    expect(typed.out).to.contain(
      `Changes from --set-json cloudLabels.costCenter="1234" --set-json nodeGroups[0].maxSize=6:`,
    );
    expect(typed.out).to.contain('tags.costCenter: (none) → "1234"');
    expect(typed.out).to.contain("maxSize: 4 → 6");
  });

  it("--rm removes a key as pulumi config rm --path does, in the order the edits are given", async () => {
    const label = await run("--diff", "--rm", "cloudLabels.team");
    expect(label.code).to.equal(0);
    expect(label.out).to.contain('tags.team: "platform" → (none)');
    // The removal undoes the set before it: the stack's value was Pulumi.yaml's default.
    const restored = await run("--diff", "--set", "kubernetesVersion=1.35.5", "--rm", "kubernetesVersion");
    expect(restored.code).to.equal(0);
    expect(restored.out).to.match(/^ {2}no changes$/m);
    const required = await run("--rm", "clusterName");
    expect(required.code).to.equal(1);
    expect(required.err).to.contain("clusterName: Required value");
  });

  it("--out writes resources, outputs and reviewer artifacts, byte-identical across runs", async () => {
    const [a, b] = [scratch(), scratch()];
    expect((await run("--out", a)).code).to.equal(0);
    expect((await run("--out", b)).code).to.equal(0);
    const first = readTree(a);
    expect(first).to.deep.equal(readTree(b));
    const resources = JSON.parse(first["resources.json"]) as { urn: string; parent: string | null; custom: boolean }[];
    expect(resources.map((r) => r.urn)).to.deep.equal(resources.map((r) => r.urn).sort());
    expect(resources.find((r) => r.urn.endsWith("::network"))).to.include({ custom: false });
    expect(JSON.parse(first["outputs.json"])).to.include({ region: "us-east-1" }).and.not.have.property("kubeconfig");
    expect(first["kubernetes/configmap-kube-system-cilium-config.yaml"]).to.match(/^apiVersion: v1\nkind: ConfigMap\n/);
    expect(first["iam/control-plane-CiliumEni.json"]).to.contain("ec2:CreateNetworkInterface");
    expect(first["userdata/nodes-template.txt"]).to.match(/^#!\/bin\/bash\n/);
  });

  it("--diff lists changed inputs and says whether nodes roll", async () => {
    const { code, out } = await run("--diff", "--set", "nodeGroups[0].maxSize=8", "--set", "cloudLabels.owner=sre");
    expect(code).to.equal(0);
    expect(out).to.match(/~ +update +aws:autoscaling\/group:Group +nodes-group/);
    expect(out).to.contain("maxSize: 4 → 8");
    expect(out).to.contain('tags.owner: (none) → "sre"');
    expect(out).to.contain("WARNING: Nodes will roll: group nodes: launch template changes (tagSpecifications");
  });

  it("--diff flags replacements", async () => {
    const { out } = await run("--diff", "--set", "api.loadBalancer=internal");
    expect(out).to.match(/\+- replace +aws:lb\/loadBalancer:LoadBalancer +network-api$/m);
    expect(out).to.contain("internal: false → true  (forces replacement)");
  });

  it("--diff says plainly when nodes do not roll", async () => {
    const { out } = await run("--diff", "--set", "api.access[0]=203.0.113.0/24");
    expect(out).to.contain("Nodes will not roll: no launch template, subnet, zone or size change.");
  });

  it("--against diffs the plan with an earlier --out, as CI does with the base branch", async () => {
    const base = scratch();
    await run("--out", base);
    const { code, out } = await run("--against", base, "--set", "nodeGroups[0].maxSize=6");
    expect(code).to.equal(0);
    expect(out).to.match(new RegExp(`^Changes against ${base}:$`, "m"));
    expect(out).to.contain("maxSize: 4 → 6");
  });

  it("--diff: switching to addons.applyFrom controlPlane leaves Cilium's objects in the cluster, and says so", async () => {
    const { code, out } = await run("--diff", "--set", "addons.applyFrom=controlPlane");
    expect(code).to.equal(0);
    expect(out).to.match(/- +delete +kubernetes:apps\/v1:DaemonSet +cilium-daemonset-cilium/);
    expect(out).to.match(
      /^ {2}Kubernetes objects leave the stack but stay in the cluster \(retainOnDelete\): .*cilium-daemonset-cilium/m,
    );
    expect(out).not.to.contain("deleted from the live cluster");
  });

  it("--against a plan whose objects are not retained warns that the switch deletes them from the cluster", async () => {
    const base = scratch();
    await run("--out", base);
    // What a stack last updated before add-on objects were retained holds: no retainOnDelete.
    const file = join(base, "resources.json");
    const resources = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>[];
    const objects = resources.filter((r) => String(r.type).startsWith("kubernetes:"));
    expect(objects.length).to.be.greaterThan(0);
    expect(objects.filter((r) => !r.retainOnDelete).map((r) => r.name)).to.deep.equal([]);
    writeFileSync(file, JSON.stringify(resources.map(({ retainOnDelete: _, ...r }) => r)));
    const { out } = await run("--against", base, "--set", "addons.applyFrom=controlPlane");
    expect(out).to.match(
      /^ {2}WARNING: Kubernetes objects are deleted from the live cluster: .*cilium-daemonset-cilium/m,
    );
  });

  it("--out keeps user data once, as text: resources.json holds its digest, and --against reads it back", async () => {
    const base = scratch();
    await run("--out", base);
    const resources = JSON.parse(readFileSync(join(base, "resources.json"), "utf8")) as {
      type: string;
      name: string;
      inputs: { userData?: string };
    }[];
    const templates = resources.filter((r) => r.type === "aws:ec2/launchTemplate:LaunchTemplate");
    expect(templates.length).to.equal(2);
    for (const t of templates) expect(t.inputs.userData).to.match(/^sha256:[0-9a-f]{64}$/);
    const unchanged = await run("--against", base);
    expect(unchanged.code).to.equal(0);
    expect(unchanged.out).to.match(/^ {2}no changes$/m);

    // A text that is not what the plan declared would make the diff a lie: refused, naming the file.
    const text = join(base, "userdata", `${templates[0].name}.txt`);
    writeFileSync(text, readFileSync(text, "utf8").replace("set -euo pipefail", "set -eu"));
    const edited = await run("--against", base);
    expect(edited.code).to.equal(2);
    expect(edited.err).to.contain(`userdata/${templates[0].name}.txt does not match the digest`);
  });

  it("--against refuses a directory without a plan, and another stack's plan", async () => {
    const base = scratch();
    const missing = await run("--against", join(base, "missing"));
    expect(missing.code).to.equal(2);
    expect(missing.err).to.contain("no resources.json there");
    await run("--out", base, "--config-file", join(PROJECT_DIR, "examples", "Pulumi.ha.yaml"));
    const other = await run("--against", base);
    expect(other.code).to.equal(2);
    expect(other.err).to.contain('that plan is of stack "ha", this one of "dev"');
    expect(other.out).to.equal("");
  });

  it("exits 1 when the program refuses the change against what the stack applied, as a preview would", async () => {
    // The plan without the edits stands for the stack's last update: the program reads its outputs back.
    const { code, out, err } = await run("--diff", "--set", "kubernetesVersion=1.34.3");
    expect(code).to.equal(1);
    expect(err).to.match(/^ {2}kubernetesVersion: Invalid value: "1\.34\.3": the cluster runs 1\.35\.4 /m);
    expect(out).to.equal("");
  });

  it("--format markdown renders a pull-request comment", async () => {
    const plan = await run("--format", "markdown");
    expect(plan.out).to.match(/^### Plan\n\n```\n/);
    const diff = await run("--format", "markdown", "--diff", "--set", "nodeGroups[0].maxSize=8");
    expect(diff.out).to.contain("| op | type | name | changes |");
    expect(diff.out.indexOf("Nodes will roll")).to.be.lessThan(diff.out.indexOf("| op |"));
    expect(diff.out).to.match(/\| update \| `aws:autoscaling\/group:Group` \| nodes-group \|/);
  });

  it("--help explains every option of the usage line and the exit codes", async () => {
    const { code, out } = await run("--help");
    expect(code).to.equal(0);
    const usage = out.split("\n")[0];
    for (const [option] of usage.matchAll(/--[a-z-]+/g)) expect(out).to.match(new RegExp(`^  ${option} `, "m"));
    expect(out).to.contain("Exit codes: 0 planned; 1 the config is invalid");
    // Every code the plan can end with: main()'s, and the script's own for a plan that failed.
    for (const code of [0, 1, 2, 3]) expect(out).to.match(new RegExp(`[;:]\\s${code} [a-z]`));
  });

  it("names the stack file of a YAML syntax error, as bad usage", async () => {
    const file = join(scratch(), "Pulumi.broken.yaml");
    writeFileSync(file, "config:\n  cilium-cluster:clusterName: a\n    nested: b\n");
    const { code, err } = await run("--config-file", file);
    expect(code).to.equal(2);
    expect(err).to.match(new RegExp(`^plan: ${file}: .* at line 2, column \\d+`, "m"));
  });

  describe("Pulumi secrets in a stack file", () => {
    const withSecret = () => {
      const file = join(scratch(), "Pulumi.secret.yaml");
      const dev = readFileSync(join(PROJECT_DIR, "Pulumi.dev.yaml"), "utf8");
      writeFileSync(file, `${dev}    costCenter:\n      secure: v1:bm90IHJlYWxseQ==\n`);
      return file;
    };

    it("are named, with the placeholder that plans without them", async () => {
      const { code, err } = await run("--config-file", withSecret());
      expect(code).to.equal(2);
      expect(err).to.contain(
        "holds Pulumi secrets (secure:) that the offline plan cannot decrypt: cloudLabels.costCenter. Plan with a " +
          "placeholder for each (--set 'cloudLabels.costCenter=placeholder'), or run pulumi preview, which decrypts them",
      );
    });

    it("plan with the placeholder as printed, on both sides of --diff", async () => {
      const file = withSecret();
      expect((await run("--config-file", file, "--set", "cloudLabels.costCenter=placeholder")).code).to.equal(0);
      const diff = await run(
        "--config-file",
        file,
        "--diff",
        "--set",
        "cloudLabels.costCenter=placeholder",
        "--set",
        "cloudLabels.owner=sre",
      );
      expect(diff.code).to.equal(0);
      expect(diff.out).to.contain('tags.owner: (none) → "sre"');
      expect(diff.out).not.to.contain("tags.costCenter");
    });
  });

  it("rejects an invalid config with every field error and exit code 1", async () => {
    const { code, err, out } = await run("--set", "networking.cilium.ipam=foo", "--set", "controlPlane.count=2");
    expect(code).to.equal(1);
    expect(out).to.equal("");
    expect(err).to.contain('networking.cilium.ipam: Unsupported value: "foo": supported values: "", "crd", "eni"');
    expect(err).to.contain('controlPlane.count: Unsupported value: 2: supported values: "1", "3"');
  });

  it("refuses aws: keys the program's own AWS calls cannot honour as config errors with their fix, not a failed plan", async () => {
    const { code, err } = await run("--set", "aws:accessKey=AKIAEXAMPLE", "--set", "controlPlane.count=2");
    expect(code).to.equal(1);
    expect(err).to.contain("aws:accessKey: Forbidden: ");
    expect(err).to.contain("(fix: pulumi config rm aws:accessKey)");
    expect(err).to.contain("controlPlane.count: Unsupported value: 2");
    expect(err).not.to.match(/^\s+at /m);
  });

  it("names a key under a misspelt namespace as such, with the fix that moves it, instead of the key it meant as missing", async () => {
    const file = join(scratch(), "Pulumi.typo.yaml");
    const dev = readFileSync(join(PROJECT_DIR, "Pulumi.dev.yaml"), "utf8");
    writeFileSync(file, dev.replace("cilium-cluster:clusterName:", "cilium-clustr:clusterName:"));
    const { code, err } = await run("--config-file", file);
    expect(code).to.equal(1);
    expect(err).to.contain("Invalid cluster configuration (1 error):");
    expect(err).to.contain(
      "(fix: pulumi config rm cilium-clustr:clusterName && pulumi config set cilium-cluster:clusterName 'dev.k8s.local')",
    );
    // The fix, applied: the plan runs.
    const fixed = await run(
      ...[
        "--config-file",
        file,
        "--rm",
        "cilium-clustr:clusterName",
        "--set",
        "cilium-cluster:clusterName=dev.k8s.local",
      ],
    );
    expect(fixed.code, fixed.err).to.equal(0);
  });

  for (const [argv, message] of [
    [["--bogus"], "unknown argument --bogus"],
    [["--set", "novalue"], "--set takes PATH=VALUE"],
    [["--config-file", "/nonexistent/Pulumi.x.yaml"], "cannot read /nonexistent/Pulumi.x.yaml"],
    [["--set", "a..b=1"], "malformed config path"],
    [["--diff"], "--diff compares against config edits (--set, --set-json, --rm)"],
    [
      ["--set-json", "cloudLabels.team=platform"],
      `the value is not JSON; quote a string, e.g. --set-json 'cloudLabels.team="platform"'`,
    ],
    [["--rm", "cloudLabels.owner"], "--rm cloudLabels.owner: the stack config has no cloudLabels.owner"],
    [["--format", "html"], "--format is text or markdown"],
    [["--diff", "--set", "a=1", "--against", "x"], "--diff and --against are alternatives"],
    [["--out", PROJECT_DIR], "refusing to replace a directory that is not an earlier --out"],
    [
      ["--diff", "--set", "nodeGroups.instanceType=m5.large"],
      "nodeGroups is a list: give an index, e.g. --set 'nodeGroups[0].instanceType=m5.large'",
    ],
    [["--set", "cloudLabels[0]=x"], "cloudLabels is not a list: use a key, not [0]"],
    [["--stack", "dev", "--config-file", "Pulumi.dev.yaml"], "Pulumi.dev.yaml is given twice"],
    [
      ["--stack", "dev", "--config-file", "examples/Pulumi.ha.yaml", "--out", PROJECT_DIR],
      "refusing to write into a directory that is not an earlier --out of several stacks",
    ],
    [["--stack", "dev", "--config-file", "examples/Pulumi.ha.yaml", "--against", "/nonexistent"], "no such directory"],
  ] as const) {
    it(`exits 2 with a usage line: ${argv.join(" ")}`, async () => {
      const { code, err } = await run(...argv);
      expect(code).to.equal(2);
      expect(err).to.contain(message);
      expect(err).to.match(/^usage: npm run plan -- /m);
    });
  }

  it("several stacks: a heading each, a plan of one directory each under --out and --against, new stacks in full", async () => {
    const root = scratch();
    const ha = join("examples", "Pulumi.ha.yaml");
    const first = await run("--stack", "dev", "--out", root);
    expect(first.code).to.equal(0);
    // An earlier --out of one stack is not one of several.
    expect((await run("--stack", "dev", "--config-file", ha, "--out", root)).code).to.equal(2);
    const base = scratch();
    expect((await run("--stack", "dev", "--out", join(base, "Pulumi.dev.yaml"))).code).to.equal(0);
    const both = await run("--stack", "dev", "--config-file", ha, "--against", base, "--set", "cloudLabels.owner=sre");
    expect(both.code).to.equal(0);
    expect(both.out).to.match(
      new RegExp(`^==> Pulumi.dev.yaml <==\nChanges against ${join(base, "Pulumi.dev.yaml")}:$`, "m"),
    );
    expect(both.out).to.contain('tags.owner: (none) → "sre"');
    expect(both.out).to.contain(
      `==> examples/Pulumi.ha.yaml <==\nNo plan of this stack in ${join(base, "examples_Pulumi.ha.yaml")} to compare with: its plan in full.\n\n`,
    );
    expect(both.out).to.match(/cilium-cluster-ha$/m);
    const bad = join(scratch(), "Pulumi.bad.yaml");
    writeFileSync(bad, "config:\n  aws:region: us-east-1\n  cilium-cluster:clusterName: Bad_Name\n");
    const failing = await run("--config-file", bad, "--stack", "dev", "--format", "markdown");
    expect(failing.code).to.equal(1);
    expect(failing.out).to.match(new RegExp(`^## ${bad}\n\n## Pulumi.dev.yaml\n\n### Plan\n`));
    expect(failing.err).to.contain("clusterName: Invalid value");
    expect(failing.err).to.match(new RegExp(`^plan: 1 of 2 stacks did not plan cleanly: ${bad}\n$`, "m"));
  });

  it("several stacks in one process: output and files byte-identical to a process per stack, on every example", function () {
    this.timeout(600000);
    // The compiled entry point, as CI runs it (`npm test` builds bin/ first), its stdout and stderr into one
    // file, as CI's comment takes them: each stack's warnings must come in its own section.
    const logs = scratch();
    const plan = (...args: string[]) => {
      const log = join(logs, String(readdirSync(logs).length));
      const fd = openSync(log, "a");
      const child = spawnSync(process.execPath, [join(PROJECT_DIR, "bin", "cli", "plan.js"), ...args], {
        cwd: PROJECT_DIR,
        stdio: ["ignore", fd, fd],
      });
      closeSync(fd);
      const output = readFileSync(log, "utf8");
      expect(child.status, output).to.equal(0);
      return output;
    };
    const files = examples().map((e) => relative(PROJECT_DIR, e.file));
    const key = (file: string) => file.replace(/\//g, "_");
    const [together, apart] = [scratch(), scratch()];
    // Plans, then diffs of an edit against them, as CI makes on the base branch and the pull request.
    for (const [step, extra] of [
      ["base", []],
      ["head", ["--set", "cloudLabels.owner=sre", "--format", "markdown"]],
    ] as const) {
      const against = (dir: string) => (step === "head" ? ["--against", join(dir, "base")] : []);
      const sections = plan(
        ...files.flatMap((f) => ["--config-file", f]),
        ...against(together),
        ...extra,
        "--out",
        join(together, step),
      ).split(/^(?:==> .* <==\n|## (?:Pulumi|examples)\S*\n\n)/m);
      expect(sections.shift()).to.equal("");
      expect(sections).to.have.length(files.length);
      files.forEach((file, i) => {
        const alone = plan(
          "--config-file",
          file,
          ...(step === "head" ? ["--against", join(apart, "base", key(file))] : []),
          ...extra,
          "--out",
          join(apart, step, key(file)),
        );
        expect(sections[i].replaceAll(join(together, "base"), join(apart, "base")), file).to.equal(alone);
        expect(readTree(join(together, step, key(file))), file).to.deep.equal(readTree(join(apart, step, key(file))));
      });
    }
  });

  it("the script exits 0, 1 and 2 as main() says, without a stack trace", () => {
    const script = (...args: string[]) =>
      spawnSync(process.execPath, [require.resolve("ts-node/dist/bin"), "--transpile-only", "cli/plan.ts", ...args], {
        cwd: PROJECT_DIR,
        encoding: "utf8",
      });
    const bad = join(scratch(), "Pulumi.bad.yaml");
    writeFileSync(bad, "config:\n  aws:region: us-east-1\n  cilium-cluster:clusterName: Bad_Name\n");
    const invalid = script("--config-file", bad);
    expect(invalid.status).to.equal(1);
    expect(invalid.stderr).to.contain("clusterName: Invalid value");
    expect(invalid.stderr).to.contain("network.availabilityZones: Required value");
    expect(invalid.stderr).not.to.match(/\n\s+at /);
    expect(script("--stack").status).to.equal(2);
    expect(script("--stack", "dev").status).to.equal(0);
  });
});
