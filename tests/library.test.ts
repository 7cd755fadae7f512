// The package as a library: another Pulumi program installs it as npm packs it, imports it by name, declares a
// Cluster with typed args (type-checked, as that program's own tsc would), and reads its outputs as
// properties, under the mocks.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { PROJECT_DIR } from "../cli/plan/examples";

const CONSUMER = `import * as pulumi from "@pulumi/pulumi";
import { Cluster, ClusterConfig } from "cilium-cluster";

const config: ClusterConfig = {
  clusterName: "lab.k8s.local",
  network: { availabilityZones: ["us-east-1a"] },
  api: { access: ["198.51.100.7/32"] },
  networking: { cilium: { ipam: "eni", disableMasquerade: true } },
  controlPlane: { acceptSingleNodeLoss: true },
};
export const cluster = new Cluster("lab", { config });
export const endpoint: pulumi.Output<string> = cluster.apiEndpoint;
`;

/**
 * A program that uses three components alone, giving each only what it reads: the network a NetworkSpec (no
 * add-ons, node groups or IAM settings), the control-plane role its name, labels, IAM settings and a policy
 * of the program's own, and Cilium its own settings (Hubble with its relay here) through the program's
 * Kubernetes provider.
 */
const PARTS = `import * as pulumi from "@pulumi/pulumi";
import { CiliumAddon, CiliumSpec, ClusterNetwork, MasterIamRole, NetworkSpec, RoleSpec, throughProvider } from "cilium-cluster";

const spec: NetworkSpec = {
  clusterName: "parts.k8s.local",
  cloudLabels: { team: "platform" },
  topology: "private",
  network: {
    cidr: "10.20.0.0/16",
    availabilityZones: ["us-east-1a"],
    uncatalogedZones: [],
    natGateways: "single",
    podCIDR: "100.96.0.0/11",
    serviceCIDR: "100.64.0.0/13",
  },
  api: { loadBalancer: "internal", access: ["10.0.0.0/8"] },
};
const role: RoleSpec = { clusterName: spec.clusterName, cloudLabels: {}, iam: { path: "/", permissionsBoundary: "" } };
export const network = new ClusterNetwork("net", { spec });
export const controlPlaneRole = new MasterIamRole("control-plane", {
  spec: role,
  coordinates: pulumi.output({ partition: "aws", region: "us-east-1", accountId: "123456789012", dnsSuffix: "amazonaws.com" }),
  policies: [
    {
      sidPrefix: "Ours",
      document: { Version: "2012-10-17", Statement: [{ Sid: "OursRead", Effect: "Allow", Action: ["s3:GetObject"], Resource: "*" }] },
    },
  ],
});
export const endpoint = controlPlaneRole.roleArn;
const ciliumSpec: CiliumSpec = {
  clusterName: spec.clusterName,
  cloudLabels: {},
  controlPlane: { count: 1 },
  networking: {
    cilium: {
      version: "v1.20.0",
      ipam: "",
      disableMasquerade: false,
      tunnel: "vxlan",
      enableNodePort: false,
      bpfMasquerade: false,
      hubble: { enabled: true, relay: true },
      extraConfig: {},
    },
  },
};
export const cilium = new CiliumAddon("cilium", {
  spec: ciliumSpec,
  apiEndpoint: "api.internal.parts.k8s.local",
  delivery: throughProvider,
});
`;

const RUN = `const pulumi = require("@pulumi/pulumi");
const { planMocks } = require(${JSON.stringify(join(PROJECT_DIR, "cli", "plan", "mocks.ts"))});
const registered = [];
const mocks = planMocks("us-east-1", ["us-east-1a"]);
const newResource = mocks.newResource.bind(mocks);
mocks.newResource = (args) => { registered.push({ type: args.type, name: args.name }); return newResource(args); };
pulumi.runtime.setMocks(mocks, "consumer", "dev", true, "organization").then(async () => {
  pulumi.runtime.setAllConfig({ "aws:region": "us-east-1" }, []);
  const report = { registered };
  try {
    const consumer = require(process.argv[1]);
    report.endpoint = await new Promise((resolve) => consumer.endpoint.apply(resolve));
    // Every registration the program started, as a preview's end waits for them.
    await pulumi.runtime.disconnect();
    if (consumer.cluster) {
      report.clusterName = consumer.cluster.clusterName;
      report.groups = await new Promise((resolve) => pulumi.output(consumer.cluster.autoScalingGroups).apply(resolve));
    }
  } catch (err) {
    report.error = { name: err.constructor.name, message: err.message };
  }
  console.log(JSON.stringify(report));
});`;

interface Report {
  registered: { type: string; name: string }[];
  endpoint?: string;
  clusterName?: string;
  groups?: Record<string, string>;
  error?: { name: string; message: string };
}

describe("the package as a library", function () {
  this.timeout(180000);
  const dir = mkdtempSync(join(tmpdir(), "library-test-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  before(() => {
    mkdirSync(join(dir, "node_modules"));
    // The package as npm packs it (from a git dependency too, whose prepare built bin/ as npm test's did),
    // installed by its name; its dependencies are this project's, and so is the Pulumi SDK the consumer
    // loads (one runtime for both).
    const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: PROJECT_DIR,
      encoding: "utf8",
    });
    expect(pack.status, pack.stderr).to.equal(0);
    const tarball = join(dir, (JSON.parse(pack.stdout) as { filename: string }[])[0].filename);
    expect(spawnSync("tar", ["-xzf", tarball, "-C", join(dir, "node_modules")]).status).to.equal(0);
    renameSync(join(dir, "node_modules", "package"), join(dir, "node_modules", "cilium-cluster"));
    symlinkSync(join(PROJECT_DIR, "node_modules"), join(dir, "node_modules", "cilium-cluster", "node_modules"));
    symlinkSync(join(PROJECT_DIR, "node_modules", "@pulumi"), join(dir, "node_modules", "@pulumi"));
    symlinkSync(join(PROJECT_DIR, "node_modules", "@types"), join(dir, "node_modules", "@types"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", main: "index.ts" }));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, module: "commonjs", target: "ES2022", esModuleInterop: true, noEmit: true },
        files: ["index.ts"],
      }),
    );
  });

  const run = (program: string): Report => {
    writeFileSync(join(dir, "index.ts"), program);
    const child = spawnSync(
      process.execPath,
      ["-r", require.resolve("ts-node/register/transpile-only"), "-e", RUN, join(dir, "index.ts")],
      {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, TS_NODE_PROJECT: join(dir, "tsconfig.json") },
      },
    );
    expect(child.status, child.stderr).to.equal(0);
    return JSON.parse(child.stdout.trim().split("\n").pop()!) as Report;
  };

  it("type-checks a program that declares a Cluster with typed args, and refuses a wrong one", () => {
    writeFileSync(join(dir, "index.ts"), CONSUMER);
    const tsc = (cwd: string) =>
      spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", cwd], { cwd, encoding: "utf8" });
    const ok = tsc(dir);
    expect(ok.status, ok.stdout).to.equal(0);
    writeFileSync(join(dir, "index.ts"), CONSUMER.replace('ipam: "eni"', 'ipam: "enis"'));
    const wrong = tsc(dir);
    expect(wrong.status).to.equal(2);
    expect(wrong.stdout).to.contain(`Type '"enis"' is not assignable`);
  });

  it("declares the cluster's resources under it, with its outputs as properties", () => {
    const report = run(CONSUMER);
    expect(report.error?.message, report.error?.message).to.equal(undefined);
    expect(report.registered[0]).to.deep.equal({ type: "cilium-cluster:index:Cluster", name: "lab" });
    const types = report.registered.map((r) => r.type);
    for (const type of ["aws:ec2/vpc:Vpc", "aws:ec2/launchTemplate:LaunchTemplate", "aws:autoscaling/group:Group"])
      expect(types).to.include(type);
    expect(report.endpoint).to.match(/^https:\/\/.+:443$/);
    expect(report.clusterName).to.equal("lab.k8s.local");
    expect(Object.keys(report.groups ?? {})).to.include("nodes");
  });

  it("uses the network, the control-plane role and Cilium alone, each given only what it reads", () => {
    writeFileSync(join(dir, "index.ts"), PARTS);
    const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", dir], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(tsc.status, tsc.stdout).to.equal(0);
    const report = run(PARTS);
    expect(report.error?.message, report.error?.message).to.equal(undefined);
    const types = report.registered.map((r) => r.type);
    for (const type of [
      "cilium-cluster:network:ClusterNetwork",
      "aws:ec2/vpc:Vpc",
      "cilium-cluster:iam:MasterIamRole",
      "aws:iam/role:Role",
      "aws:iam/policy:Policy",
      "cilium-cluster:cilium:CiliumAddon",
      "kubernetes:apps/v1:DaemonSet",
    ])
      expect(types).to.include(type);
    expect(report.registered.filter((r) => r.type === "aws:iam/policy:Policy").map((r) => r.name)).to.deep.equal([
      "control-plane-Ours",
    ]);
    expect(report.registered.map((r) => r.name)).to.include.members([
      "cilium-configmap-cilium-config",
      "cilium-daemonset-cilium",
      "cilium-deployment-hubble-relay",
    ]);
  });

  it("refuses a provider: its lookups and pulumi up's own AWS calls are the stack's default provider's", () => {
    const report = run(
      CONSUMER.replace(
        'export const cluster = new Cluster("lab", { config });',
        'import { Provider } from "@pulumi/aws/provider";\n' +
          'export const cluster = new Cluster("lab", { config }, { providers: [new Provider("west", { region: "us-west-2" })] });',
      ),
    );
    expect(report.error?.message).to.contain("a Cluster takes no provider");
    expect(report.registered.map((r) => r.type)).not.to.include("cilium-cluster:index:Cluster");
  });

  it("refuses a bad config with every error at once, before declaring anything", () => {
    const report = run(CONSUMER.replace('"lab.k8s.local"', '"Lab"').replace('["us-east-1a"]', "[]"));
    expect(report.registered).to.deep.equal([]);
    expect(report.error?.name).to.equal("ConfigValidationError");
    expect(report.error?.message).to.contain("clusterName: Invalid value");
    expect(report.error?.message).to.contain("network.availabilityZones");
  });
});
