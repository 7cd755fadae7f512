// The entry points' runtime settings (runtimeSettings.ts, and planRuntimeSettings.ts for the plan), run
// compiled as `npm run plan` and `pulumi preview` run them: what `@pulumi/pulumi` requires as it loads and the
// program never uses (unusedSdkModules.ts) is loaded only if something uses it, and in a plan gRPC too, which
// a preview talks to the engine through; stack traces are off, and formatted by V8. Each case is a fresh Node
// process, which records which of those modules something required and which Node compiled, that is loaded.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { basename, dirname, join } from "path";
import { BUILD_DIR } from "../buildStamp";
import { PROJECT_DIR } from "../plan/examples";
import { unusedSdkModules } from "../unusedSdkModules";

const MODULES = unusedSdkModules();
const FILES = MODULES.map((m) => m.filename);

type Probe = Record<string, { required: boolean; compiled: boolean }>;

/**
 * Runs `script` in plain Node with `probe()` defined, which says for each unused module whether something
 * required it and whether it loaded; the script writes what it found as the last line of its output.
 */
function run(script: string, env: NodeJS.ProcessEnv = {}): string[] {
  const prelude = `const files = ${JSON.stringify(FILES)};
const compiled = new Set();
const js = require.extensions[".js"];
require.extensions[".js"] = (module, file) => { if (files.includes(file)) compiled.add(file); return js(module, file); };
const probe = () => Object.fromEntries(files.map((f) => [f, { required: require.cache[f] !== undefined, compiled: compiled.has(f) }]));
`;
  // spawnSync blocks the event loop, so mocha's own timeout could not end a script that hangs.
  const child = spawnSync(process.execPath, ["-e", prelude + script], {
    cwd: PROJECT_DIR,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 90000,
  });
  expect(child.signal, child.stderr).to.equal(null);
  expect(child.status, child.stderr).to.equal(0);
  return child.stdout.trim().split("\n");
}

const last = (lines: string[]): Probe => JSON.parse(lines[lines.length - 1]) as Probe;
const everyFile = (state: { required: boolean; compiled: boolean }): Probe =>
  Object.fromEntries(FILES.map((f) => [f, state]));

describe("runtime settings: the SDK modules the program never uses load only when used", function () {
  this.timeout(120000);

  it("are TypeScript's compiler, the Automation API, the provider server, OpenTelemetry, normalize-package-data, semver, and gRPC with the SDK's generated clients", () => {
    const sdk = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [PROJECT_DIR] }));
    const modules = join(PROJECT_DIR, "node_modules");
    expect(
      FILES.map((f) =>
        f.startsWith(sdk) ? f.slice(sdk.length + 1) : f.startsWith(modules) ? f.slice(modules.length + 1) : basename(f),
      ),
    ).to.deep.equal([
      "typescript/lib/typescript.js",
      "automation/index.js",
      "provider/index.js",
      "@opentelemetry/api/build/src/index.js",
      "normalize-package-data/lib/normalize.js",
      "semver/index.js",
      "@grpc/grpc-js/build/src/index.js",
      "proto/resource_grpc_pb.js",
      "proto/engine_grpc_pb.js",
      "proto/callback_grpc_pb.js",
    ]);
    // A preview connects to the engine through gRPC; a plan never does.
    expect(MODULES.filter((m) => m.previewUses).map((m) => basename(m.filename))).to.deep.equal([
      "index.js",
      "resource_grpc_pb.js",
      "engine_grpc_pb.js",
      "callback_grpc_pb.js",
    ]);
  });

  it("a plan of the dev stack requires each (through the SDK) and loads none, nor Node's http, https and tls", () => {
    // Node lists the built-in modules it loaded in process.moduleLoadList: components/k8s/apiReady.ts loads
    // http and https, with tls, only when pulumi up waits for the API.
    const lines =
      run(`const loaded = () => ["fs", "http", "https", "tls"].filter((m) => process.moduleLoadList.includes("NativeModule " + m));
process.on("exit", () => process.stdout.write("\\n" + JSON.stringify(loaded()) + "\\n" + JSON.stringify(probe())));
process.argv.push("plan.js");
require("./${BUILD_DIR}/scripts/plan.js");`);
    expect(lines.join("\n")).to.match(/^Resources: \d+ to create$/m);
    // fs, which every plan loads, shows that the list names modules as the check reads it.
    expect(JSON.parse(lines[lines.length - 2])).to.deep.equal(["fs"]);
    expect(last(lines)).to.deep.equal(everyFile({ required: true, compiled: false }));
  });

  it("the program's entry point, as pulumi preview loads it, loads the SDK and gRPC but none of the others", () => {
    const lines = run(`require("./${BUILD_DIR}/index.js");
console.log(JSON.stringify(probe()));`);
    expect(last(lines)).to.deep.equal(
      Object.fromEntries(MODULES.map((m) => [m.filename, { required: true, compiled: m.previewUses }])),
    );
  });

  it("each loads on first use and works, as the SDK uses it: the closure serializer, the Automation API, the provider server, the trace context, package.json normalization, resource module versions, the engine's gRPC services", () => {
    const lines = run(`require("./${BUILD_DIR}/runtimeSettings.js");
require("./${BUILD_DIR}/planRuntimeSettings.js");
const pulumi = require("@pulumi/pulumi");
console.log(JSON.stringify(probe()));
const sdkFile = (name) => require.resolve(name, { paths: [require.resolve("@pulumi/pulumi")] });
// semver taken as a default import (\`__importDefault\`), as typescript-estree takes the same file.
const semverDefault = ((mod) => (mod && mod.__esModule ? mod : { default: mod }))(require(sdkFile("semver"))).default;
/** A resource monitor and an engine on loopback, served with gRPC as the Pulumi CLI serves them. */
function serveEngine(address) {
  const grpc = require(sdkFile("@grpc/grpc-js"));
  const { ResourceMonitorService } = require(sdkFile("@pulumi/pulumi/proto/resource_grpc_pb"));
  const { EngineService } = require(sdkFile("@pulumi/pulumi/proto/engine_grpc_pb"));
  const { SupportsFeatureResponse } = require(sdkFile("@pulumi/pulumi/proto/resource_pb"));
  const { Empty } = require(sdkFile("google-protobuf/google/protobuf/empty_pb"));
  const logged = [];
  const transforms = [];
  const server = new grpc.Server();
  server.addService(ResourceMonitorService, {
    supportsFeature: (call, done) => done(null, new SupportsFeatureResponse().setHassupport(call.request.getId() === "secrets")),
    registerStackTransform: (call, done) => { transforms.push(call.request.getTarget()); done(null, new Empty()); },
  });
  server.addService(EngineService, {
    log: (call, done) => { logged.push(call.request.getMessage()); done(null, new Empty()); },
  });
  return new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve({ logged, transforms, server })));
}
/** A free port on loopback, for the engine's address before anything serves it. */
const freePort = () => new Promise((resolve) => {
  const server = require("net").createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});
const offset = 41;
pulumi.runtime.serializeFunction(function add(x) { return x + offset; }).then(async (serialized) => {
  const module = { exports: {} };
  new Function("module", "exports", "require", serialized.text)(module, module.exports, require);
  // As runtime/settings.js and runtime/closure/codePaths.js require them (a CommonJS default import).
  const opentelemetry = require("@opentelemetry/api");
  const normalize = ((mod) => (mod && mod.__esModule ? mod : { default: mod }))(require("normalize-package-data"));
  const pkg = { name: "cilium-cluster", version: "v0.1.0" };
  normalize.default(pkg);
  // Resource modules registered at two versions: the SDK picks the newer by semver (1.10.0 after 1.2.3).
  pulumi.runtime.registerResourceModule("test", "index", { version: "1.2.3", construct: () => "1.2.3" });
  pulumi.runtime.registerResourceModule("test", "index", { version: "1.10.0", construct: () => "1.10.0" });
  const newest = pulumi.runtime.getResourceModule("test", "index", undefined).construct();
  const atOne = pulumi.runtime.getResourceModule("test", "index", "1.0.0").construct();
  // The SDK's own clients, as pulumi preview connects them, which load gRPC and their stubs as the SDK builds
  // them; then a feature query to the monitor and a log to the engine.
  const address = "127.0.0.1:" + (await freePort());
  pulumi.runtime.resetOptions("project", "stack", -1, address, address, true, "");
  pulumi.runtime.getMonitor();
  pulumi.runtime.getEngine();
  const loadedBySdk = ["@grpc/grpc-js", "@pulumi/pulumi/proto/resource_grpc_pb", "@pulumi/pulumi/proto/engine_grpc_pb"].map(
    (name) => compiled.has(sdkFile(name)));
  const engine = await serveEngine(address);
  const { SupportsFeatureRequest } = require(sdkFile("@pulumi/pulumi/proto/resource_pb"));
  const secrets = await new Promise((resolve, reject) =>
    pulumi.runtime.getMonitor().supportsFeature(new SupportsFeatureRequest().setId("secrets"), (err, response) =>
      err ? reject(err) : resolve(response.getHassupport())));
  await pulumi.log.info("through the engine");
  // The SDK's callback server, which serves transforms to the engine: it checks its own address with a call
  // before it registers a transform with the monitor.
  const callbacks = pulumi.runtime.getCallbacks();
  callbacks.registerStackTransform((args) => args);
  await callbacks.awaitStackRegistrations();
  callbacks.shutdown();
  engine.server.forceShutdown();
  console.log(JSON.stringify([
    module.exports.handler(1),
    pulumi.automation.fullyQualifiedStackName("org", "project", "dev"),
    pulumi.provider.containsOutputs({ a: 1 }),
    typeof opentelemetry.propagation.inject,
    pkg.version,
    newest,
    atOne,
    semverDefault.valid("v1.2.3"),
    loadedBySdk,
    secrets,
    engine.logged,
    engine.transforms.map((target) => /^127\\.0\\.0\\.1:\\d+$/.test(target)),
  ]));
  // Loaded now: each is the real module, an ES module as the settings said or not.
  console.log(JSON.stringify(files.map((f) => require(f).__esModule === true)));
  console.log(JSON.stringify(probe()));
});`);
    expect(JSON.parse(lines[0])).to.deep.equal(everyFile({ required: true, compiled: false }));
    expect(JSON.parse(lines[1])).to.deep.equal([
      42,
      "org/project/dev",
      false,
      "function",
      "0.1.0",
      "1.10.0",
      "1.10.0",
      "1.2.3",
      [true, true, true],
      true,
      ["through the engine"],
      [true],
    ]);
    expect(JSON.parse(lines[2])).to.deep.equal(MODULES.map((m) => m.esModule));
    expect(last(lines)).to.deep.equal(everyFile({ required: true, compiled: true }));
  });
});

describe("runtime settings: a plan's failures, without gRPC loaded", function () {
  this.timeout(120000);

  it("a registration the mocks refuse fails with its message and a refused invoke rejects, the SDK loading gRPC for the error's code", () => {
    const lines = run(`require("./${BUILD_DIR}/runtimeSettings.js");
require("./${BUILD_DIR}/planRuntimeSettings.js");
const pulumi = require("@pulumi/pulumi");
const sdkFile = (name) => require.resolve(name, { paths: [require.resolve("@pulumi/pulumi")] });
const mocks = {
  newResource: (args) => {
    if (args.type === "test:index:Thing") throw new Error("refused " + args.name);
    return { id: args.name, state: args.inputs };
  },
  call: (args) => { throw new Error("no answer for " + args.token); },
};
pulumi.runtime.setMocks(mocks, "project", "stack", true).then(async () => {
  const failures = [];
  await pulumi.runtime.runInPulumiStack(async () => {
    // The SDK rejects a refused invoke with an empty message, with or without these settings.
    await pulumi.runtime.invoke("test:index:lookup", {}).then(() => failures.push("invoke answered"), (err) => failures.push("invoke: " + (err instanceof Error)));
    const thing = new pulumi.CustomResource("test:index:Thing", "thing", {});
    await thing.urn.promise().catch((err) => failures.push(err.message));
    return {};
  }).catch((err) => failures.push(err.message));
  console.log(JSON.stringify(failures));
  console.log(JSON.stringify(["@grpc/grpc-js", "@pulumi/pulumi/proto/resource_grpc_pb"].map((name) => compiled.has(sdkFile(name)))));
  // The refused resource leaves promises of the SDK's pending, which its leak check at exit reports.
  process.on("exit", () => (process.exitCode = 0));
});`);
    const failures = JSON.parse(lines[lines.length - 2]) as string[];
    expect(failures).to.deep.equal([
      "invoke: true",
      "failed to register new resource thing [test:index:Thing]: refused thing",
    ]);
    // gRPC for its status codes, on the error's path; the engine's clients never.
    expect(JSON.parse(lines[lines.length - 1])).to.deep.equal([true, false]);
  });
});

describe("runtime settings: stack traces", function () {
  this.timeout(60000);

  // As Pulumi's Node.js runner loads the program: source-map support first, then bin/index.js.
  const preview = `const { dirname } = require("path");
require(require.resolve("source-map-support/register", { paths: [dirname(require.resolve("@pulumi/pulumi/cmd/run"))] }));
require("./${BUILD_DIR}/index.js");
const error = new Error("refused");
console.log(JSON.stringify({ frames: error.stack.split("\\n").length - 1, sourceMaps: Error.prepareStackTrace !== undefined }));`;

  it("in a preview, errors carry their message alone, and V8 formats the traces the SDK captures", () => {
    expect(JSON.parse(run(preview).pop()!)).to.deep.equal({ frames: 0, sourceMaps: false });
  });

  it("CILIUM_CLUSTER_STACK_TRACES=1 leaves them as the runner has them: traces, mapped by source maps", () => {
    const found = JSON.parse(run(preview, { CILIUM_CLUSTER_STACK_TRACES: "1" }).pop()!) as { frames: number };
    expect(found).to.include({ sourceMaps: true });
    expect(found.frames).to.be.greaterThan(0);
  });
});
