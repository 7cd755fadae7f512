// `npm run validate-cluster` (cli/clusterCheck/command.ts): --help, and every usage error exits 2 with a line that
// says what is wrong and the usage, before anything is asked of the cluster or AWS.
import { expect } from "chai";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { HELP, main, USAGE } from "../../cli/clusterCheck/command";

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
      ["--stack", "dev", "--kubeconfig", join(dir, "none")],
      /cannot read the kubeconfig .*none \(ENOENT.*: write one with npm run kubeconfig/,
    ],
    [["--stack", "dev", "--kubeconfig", noCluster], /the kubeconfig .* has no current context with a cluster/],
  ];
  // A stand-in for the Pulumi CLI's `pulumi stack --show-name` (pkg/cmd/pulumi/stack/stack.go): the selected
  // stack's name on stdout; with none selected in a non-interactive shell, the CLI's error (pkg/cmd/pulumi/stack/io.go)
  // on stderr and exit 255.
  const cli = mkdtempSync(join(tmpdir(), "validate-pulumi-"));
  const script = [
    "#!/bin/bash",
    '[[ "$*" == "stack --show-name" ]] || { echo "unexpected: pulumi $*" >&2; exit 2; }',
    'if [[ -n "${SELECTED_STACK:-}" ]]; then echo "$SELECTED_STACK"; exit 0; fi',
    "echo 'error: no stack selected; please use `pulumi stack select` or `pulumi stack init` to choose one' >&2",
    "exit 255",
  ];
  writeFileSync(join(cli, "pulumi"), `${script.join("\n")}\n`, { mode: 0o755 });
  const withPath = async (path: string, selected: string | undefined, ...argv: string[]) => {
    const saved = { PATH: process.env.PATH, SELECTED_STACK: process.env.SELECTED_STACK };
    process.env.PATH = path;
    if (selected === undefined) delete process.env.SELECTED_STACK;
    else process.env.SELECTED_STACK = selected;
    try {
      return await run(...argv);
    } finally {
      process.env.PATH = saved.PATH;
      if (saved.SELECTED_STACK === undefined) delete process.env.SELECTED_STACK;
      else process.env.SELECTED_STACK = saved.SELECTED_STACK;
    }
  };
  const systemPath = "/usr/bin:/bin";
  const selectedCases: [string, () => ReturnType<typeof run>, RegExp][] = [
    // The stack pulumi stack select chose is the one checked: here one without a stack file.
    [
      "the selected stack's file",
      () => withPath(`${cli}:${systemPath}`, "nosuch", "instancegroups"),
      /cannot read .*Pulumi\.nosuch\.yaml/,
    ],
    [
      "no stack selected",
      () => withPath(`${cli}:${systemPath}`, undefined, "instancegroups"),
      /no stack named, and the selected one is unknown \(pulumi stack --show-name failed: error: no stack selected; .*\): give --stack NAME/,
    ],
    [
      "no Pulumi CLI",
      () => withPath(systemPath, undefined, "instancegroups"),
      /no stack named, and the selected one is unknown \(the Pulumi CLI is not installed\): give --stack NAME \(Pulumi\.NAME\.yaml\) or --config-file PATH/,
    ],
  ];
  for (const [what, call, message] of selectedCases)
    it(`without --stack, ${what}: exit 2`, async () => {
      const r = await call();
      expect(r.code).to.equal(2);
      expect(r.err).to.match(message);
    });

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
