// Every fix hint, run as printed: the command is parsed by bash, applied to the stack config the way the
// Pulumi CLI applies it (`--path` coercion, `--type string`, `config rm`), and validation runs again.
import { expect } from "chai";
import { execFileSync } from "child_process";
import { removePath, setPath, StackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../components/clusterConfigValidation";
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
  "a tag key AWS reserves": (c) => setPath(c, 'cloudLabels["aws:team"]', "platform"),
  "an extraConfig key the program manages": (c) => setPath(c, "networking.cilium.extraConfig.ipam", "kubernetes"),
  "an unknown key": (c) => setPath(c, "networking.cilium.ipma", "eni"),
  "no zones": (c) => removePath(c, "network.availabilityZones"),
  "too many zones": (c) =>
    "abcdefgh".split("").forEach((l, i) => setPath(c, `network.availabilityZones[${i}]`, `us-east-1${l}`)),
  "a made-up instance type": (c) => setPath(c, "nodeGroups[0].instanceType", "t3.mega"),
  "a control plane kubeadm refuses": (c) => setPath(c, "controlPlane.instanceType", "t3.micro"),
  "an instance type on Dedicated Hosts only": (c) => setPath(c, "nodeGroups[0].instanceType", "mac2.metal"),
  "an ENI-mode worker whose ENIs hold only the cluster's own pods": (c) =>
    setPath(c, "nodeGroups[0].instanceType", "t3.micro"),
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
  "a Kubernetes release that does not exist": (c) => setPath(c, "kubernetesVersion", "1.35.99"),
  "a Kubernetes version YAML read as a number": (c) => {
    c["cilium-cluster:kubernetesVersion"] = 1.35;
  },
  "a zone the region does not have": (c) => setPath(c, "network.availabilityZones[2]", "us-east-1g"),
  "zones of a region the catalog has no zones of": (c) => {
    c["aws:region"] = "us-iso-east-1";
    c["cilium-cluster:network"] = { availabilityZones: ["us-iso-east-1a", "us-iso-east-1b"] };
  },
  "a duplicate zone": (c) => setPath(c, "network.availabilityZones[1]", "us-east-1a"),
  "a misspelt extraConfig key": (c) => setPath(c, "networking.cilium.extraConfig.policy-audit-mdoe", "true", "string"),
  "an extraConfig key nothing resembles": (c) => setPath(c, "networking.cilium.extraConfig.zzzzzzzz", "1", "string"),
  "a misspelt region": (c) => {
    c["aws:region"] = "us-eest-1";
  },
  "a VPC too small for the topology": (c) => setPath(c, "network.cidr", "10.0.0.0/24"),
  "ENI pods a wider VPC holds": (c) => {
    setPath(c, "network.cidr", "10.0.0.0/20");
    setPath(c, "nodeGroups[0].maxSize", "60");
  },
  "ENI pods not even a /16 VPC holds": (c) => setPath(c, "nodeGroups[0].maxSize", "1000"),
  "host bits in a CIDR": (c) => setPath(c, "network.cidr", "10.0.0.1/16"),
  "a CIDR prefix out of range": (c) => setPath(c, "network.serviceCIDR", "100.64.0.0/8"),
  "a duplicate API access entry": (c) => setPath(c, "api.access[1]", "203.0.113.7/32"),
  "an allowed value in the wrong case": (c) => setPath(c, "networking.cilium.ipam", "ENI"),
  "a size below its minimum": (c) => setPath(c, "controlPlane.rootVolumeSize", "10"),
  "minSize above maxSize": (c) => setPath(c, "nodeGroups[0].minSize", "9"),
  "a control-plane count that is neither 1 nor 3": (c) => setPath(c, "controlPlane.count", "2"),
  "Cilium's NodePort beside kube-proxy": (c) => setPath(c, "networking.cilium.enableNodePort", "true"),
  "ENI IPAM with masquerading": (c) => setPath(c, "networking.cilium.disableMasquerade", "false"),
  "masquerade disabled outside ENI mode": (c) => setPath(c, "networking.cilium.ipam", ""),
  // The nearest allowed prefix, /24, would hold neither the subnet plan nor ENI mode's pods.
  "a VPC smaller than a /24": (c) => setPath(c, "network.cidr", "10.0.0.0/26"),
  // The range's floor, 1, would fall below the group's minSize of 2.
  "a node group whose maxSize is 0": (c) => setPath(c, "nodeGroups[0].maxSize", "0"),
  // Acknowledged as a zone the catalog does not know yet, it would still have no subnet slot.
  "a zone past the subnet slots, in a region the catalog has no zones of": (c) => {
    c["aws:region"] = "us-iso-east-1";
    c["cilium-cluster:network"] = { availabilityZones: ["us-iso-east-1a", "us-iso-east-1z"] };
  },
  "no api.access for an internal API the deploying machine applies the add-ons through": (c) => {
    setPath(c, "api.loadBalancer", "internal");
    removePath(c, "api.access");
  },
  "a Cilium version without its v": (c) => setPath(c, "networking.cilium.version", "1.20.2"),
};

/** Breakages whose fix is the user's choice (which zones, which region, what to list): a placeholder stays. */
const USER_CHOICE = new Set([
  "no zones",
  "no region",
  "a string where a list goes",
  "a string where a map goes",
  "a malformed Kubernetes version",
]);

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
        if (!USER_CHOICE.has(name)) expect(hint, "the value is known").not.to.match(/<value>|<key>/);
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
    // An internal API is out of the deploying machine's reach unless it is in the VPC's network.
    expect(
      hints(BROKEN["no api.access for an internal API the deploying machine applies the add-ons through"]),
    ).to.deep.equal(["pulumi config set --path 'addons.applyFrom' 'controlPlane'"]);
    expect(hints(BROKEN["no zones"])).to.deep.equal([
      "pulumi config set --path 'network.availabilityZones[0]' <value>",
    ]);
  });
});
