// Every fix hint, run as printed: the command is parsed by bash, applied to the stack config the way the
// Pulumi CLI applies it (`--path` coercion, `--type string`, `config rm`), and validation runs again.
import { expect } from "chai";
import { execFileSync } from "child_process";
import { removePath, setPath, StackConfig, toRuntimeConfig } from "../../plan/stackConfig";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../config/validation/validateConfig";
import { errorKey, FieldError } from "../../config/validation/fieldErrors";
import { fixCommand } from "../../config/validation/fixHints";
import { configWith } from "../planHelpers";

function validate(config: StackConfig): FieldError[] {
  const { raw, region } = readRawConfig(toRuntimeConfig(config));
  return validateConfig(raw, region).errors;
}

/** What a user types for `<value>` and `<key>`: a valid value for the field. */
function valueFor(field: string): string {
  if (field === "aws:region") return "us-east-1";
  if (field.startsWith("network.availabilityZones")) return "us-east-1a";
  if (field.startsWith("api.access")) return "203.0.113.0/24";
  if (field.endsWith("instanceType")) return "t3.large";
  if (field === "kubernetesVersion") return "1.33.5";
  return "1234";
}

/** The hint's words as bash splits them, after filling in the placeholders. */
function words(command: string, field: string): string[] {
  const filled = command.replace(/<value>/g, `'${valueFor(field)}'`).replace(/<key>/g, "owner");
  const out = execFileSync("bash", ["-c", `set -- ${filled}; printf '%s\\0' "$@"`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}

/** Runs one `pulumi config ...` command against the config. */
function apply(config: StackConfig, argv: string[]): void {
  expect(argv.slice(0, 2)).to.deep.equal(["pulumi", "config"]);
  const [verb, ...args] = argv.slice(2);
  const path = args.includes("--path");
  const type = args.includes("--type") ? args[args.indexOf("--type") + 1] : undefined;
  const positional = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--type");
  if (verb === "rm") return removePath(config, positional[0]);
  expect(verb).to.equal("set");
  if (!path) {
    config[positional[0]] = positional[1];
    return;
  }
  expect(type === undefined || type === "string", `--type ${type}`).to.equal(true);
  setPath(config, positional[0], positional[1], type as "string" | undefined);
}

const BROKEN: Record<string, (config: StackConfig) => void> = {
  "a cloud label the CLI made a number": (c) => setPath(c, "cloudLabels.costCenter", "1234"),
  "an extraConfig value the CLI made a boolean": (c) => setPath(c, "networking.cilium.extraConfig.debug", "true"),
  "a tag the program sets itself": (c) => setPath(c, "cloudLabels.KubernetesCluster", "other"),
  "an extraConfig key the program manages": (c) => setPath(c, "networking.cilium.extraConfig.ipam", "kubernetes"),
  "an unknown key": (c) => setPath(c, "networking.cilium.ipma", "eni"),
  "no zones": (c) => removePath(c, "network.availabilityZones"),
  "too many zones": (c) =>
    "abcdefgh".split("").forEach((l, i) => setPath(c, `network.availabilityZones[${i}]`, `us-east-1${l}`)),
  "a made-up instance type": (c) => setPath(c, "nodeGroups[0].instanceType", "t3.mega"),
  "no region": (c) => removePath(c, "aws:region"),
  "a string where a list goes": (c) => setPath(c, "api.access", "0.0.0.0/0"),
  "a string where a map goes": (c) => {
    c["cilium-cluster:cloudLabels"] = "team=platform";
  },
  "a malformed Kubernetes version": (c) => setPath(c, "kubernetesVersion", "v1.33"),
  "another of kOps's clouds": (c) => setPath(c, "cloudProvider", "gce"),
  "no api.access for a public API": (c) => removePath(c, "api.access"),
  "more api.access CIDRs than the security group holds": (c) =>
    Array.from({ length: 59 }, (_, i) => setPath(c, `api.access[${i}]`, `10.${i}.0.0/16`)),
  "more cloud labels than AWS's tags per resource leave room for": (c) =>
    Array.from({ length: 46 }, (_, i) => setPath(c, `cloudLabels.label-${i}`, "x")),
};

describe("fix hints, each applied as printed", () => {
  for (const [name, breakIt] of Object.entries(BROKEN)) {
    it(`fixes ${name}`, () => {
      const config = configWith();
      breakIt(config);
      const errors = validate(config);
      expect(errors, "the broken config fails").not.to.deep.equal([]);
      for (const error of errors) {
        const fixed = structuredClone(config);
        const hint = fixCommand(error);
        for (const command of hint.split(" && ")) apply(fixed, words(command, error.field));
        const after = validate(fixed).map(errorKey);
        expect(after, `${errorKey(error)} after: ${hint}`).not.to.include(errorKey(error));
        expect(after.length, `no new errors after: ${hint}`).to.be.lessThan(errors.length);
      }
    });
  }

  it("prints --type string where the CLI would coerce, and config rm where the key must go", () => {
    const hints = (breakIt: (c: StackConfig) => void) => {
      const config = configWith();
      breakIt(config);
      return validate(config).map(fixCommand);
    };
    expect(hints(BROKEN["a cloud label the CLI made a number"])).to.deep.equal([
      "pulumi config set --path 'cloudLabels.costCenter' --type string '1234'",
    ]);
    expect(hints(BROKEN["an extraConfig key the program manages"])).to.deep.equal([
      "pulumi config rm --path 'networking.cilium.extraConfig.ipam'",
    ]);
    expect(hints(BROKEN["no zones"])).to.deep.equal([
      "pulumi config set --path 'network.availabilityZones[0]' <value>",
    ]);
  });
});
