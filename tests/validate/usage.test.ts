// `npm run validate-cluster` (validate/command.ts): --help, and every usage error exits 2 with a line that
// says what is wrong and the usage, before anything is asked of the cluster or AWS.
import { expect } from "chai";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { HELP, main, USAGE } from "../../validate/command";

async function run(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe("npm run validate-cluster: usage", () => {
  it("--help prints the help, exit 0", async () => {
    expect(await run("--help")).to.deep.equal({ code: 0, out: HELP, err: "" });
  });

  const dir = mkdtempSync(join(tmpdir(), "validate-usage-"));
  const invalid = join(dir, "Pulumi.bad.yaml");
  writeFileSync(invalid, "config:\n  cilium-cluster:clusterName: Not_A_Name\n");
  const noCluster = join(dir, "kubeconfig");
  writeFileSync(noCluster, "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n");
  const cases: [string[], RegExp][] = [
    [["--bogus"], /Unknown option '--bogus'/],
    [["nodes"], /unknown command nodes: the only command is instancegroups/],
    [["--stack", "dev", "--config-file", "Pulumi.dev.yaml"], /--stack and --config-file name the stack twice/],
    [["--wait", "ten minutes"], /--wait ten minutes: a duration such as 10m/],
    [["instancegroups", "--wait", "1m"], /--wait is for the cluster check, not instancegroups/],
    [["--stack", "nosuch"], /cannot read .*Pulumi\.nosuch\.yaml/],
    [
      ["--config-file", invalid],
      /Pulumi\.bad\.yaml: Invalid cluster configuration \(\d+ errors\):\n( {2}.*\n)* {2}clusterName: Invalid value: "Not_A_Name"/,
    ],
    [
      ["--kubeconfig", join(dir, "none")],
      /cannot read the kubeconfig .*none \(ENOENT.*: mint one with npm run kubeconfig/,
    ],
    [["--kubeconfig", noCluster], /the kubeconfig .* has no current context with a cluster/],
  ];
  for (const [argv, message] of cases)
    it(`${argv.join(" ")}: exit 2`, async () => {
      const r = await run(...argv);
      expect(r.code).to.equal(2);
      expect(r.out).to.equal("");
      expect(r.err).to.match(message);
      expect(r.err.startsWith("validate-cluster: ")).to.equal(true);
      expect(r.err.endsWith(`${USAGE}\n`)).to.equal(true);
    });
});
