// Product code imports each resource class and function of the AWS, Kubernetes, TLS and random SDKs from its
// own module (`@pulumi/aws/ec2/vpc`), never a package root or a namespace's index, which defines a getter for
// every class of the namespace and, for AWS's CloudWatch, S3 and SQS, loads Lambda for their event mixins;
// and the AWS SDK's clients only when pulumi up calls AWS itself.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { readFileSync } from "fs";
import { basename, join } from "path";
import { BUILD_DIR, compiledSources } from "../devtools/buildStamp";

const ROOT = join(__dirname, "..");
/** The resource SDKs whose classes the program declares. */
const SDK = /^@pulumi\/(?:aws|kubernetes|tls|random)(?:\/|$)/;
/** AWS's enums exist only as namespaces (`Region`, `ec2.InstanceType`): catalogs/awsEnums.ts reads two. */
const ENUMS = `${join("@pulumi", "aws", "types", "enums")}/`;
/** Loaded only when `pulumi up` calls AWS itself (the control-plane member wait): never by a preview. */
const AWS_CLIENTS = ["@aws-sdk/client-auto-scaling", "@aws-sdk/client-ssm", "@aws-sdk/client-sts"];
/** A module named in an import, an export, a dynamic import or a require, with either quote. */
const MODULE_SPECIFIER = /(?:from|import|require)\s*\(?\s*["'](@pulumi\/[^"']+)["']/g;

/** A package root or namespace index of a resource SDK, other than AWS's enums. */
const isIndex = (file: string): boolean =>
  SDK.test(file.replace(/^.*node_modules\//, "")) && basename(file) === "index.js" && !file.includes(ENUMS);

describe("SDK imports", () => {
  it("product code imports each SDK class from its own module, never a package root or namespace index", () => {
    const files = compiledSources(ROOT).filter((f) => f.endsWith(".ts"));
    expect(files.length).to.be.greaterThan(50);
    const imports = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), "utf8").matchAll(MODULE_SPECIFIER)]
        .map((m) => m[1])
        .filter((specifier) => SDK.test(specifier))
        .map((specifier) => ({ file, specifier, resolved: require.resolve(specifier, { paths: [ROOT] }) })),
    );
    // The program declares its resources through these: a regular expression that stopped matching would
    // make the check below vacuous.
    expect(imports.map((i) => i.specifier)).to.include.members([
      "@pulumi/aws/ec2/vpc",
      "@pulumi/kubernetes/apps/v1/daemonSet",
      "@pulumi/aws/kms/key",
      "@pulumi/random/randomId",
    ]);
    expect(imports.filter((i) => isIndex(i.resolved)).map((i) => `${i.file}: ${i.specifier}`)).to.deep.equal([]);
  });

  it("the check refuses a package root and a namespace index", () => {
    for (const specifier of ["@pulumi/aws", "@pulumi/aws/ec2", "@pulumi/kubernetes/apps/v1", "@pulumi/random"])
      expect(isIndex(require.resolve(specifier, { paths: [ROOT] })), specifier).to.equal(true);
    expect(isIndex(require.resolve("@pulumi/aws/types/enums/ec2", { paths: [ROOT] }))).to.equal(false);
  });

  it("a plan of the dev stack loads no SDK package root or namespace index, nor the AWS SDK clients", () => {
    // The compiled plan (npm test builds it first), as `npm run plan` runs it: the program, run as a preview.
    const script = `const clients = ${JSON.stringify(AWS_CLIENTS)}.map((r) => require.resolve(r));
process.on("exit", () => process.stdout.write("\\n" + JSON.stringify(Object.keys(require.cache))));
process.argv.push("plan.js");
require("./${BUILD_DIR}/cli/plan.js");`;
    const r = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^Resources: \d+ to create$/m);
    const loaded = JSON.parse(r.stdout.trim().split("\n").pop()!) as string[];
    // What a plan does load of them: the classes it declares.
    expect(loaded.some((f) => f.endsWith(join("aws", "ec2", "launchTemplate.js")))).to.equal(true);
    expect(loaded.filter(isIndex)).to.deep.equal([]);
    const clients = AWS_CLIENTS.map((c) => require.resolve(c, { paths: [ROOT] }));
    expect(loaded.filter((f) => clients.includes(f))).to.deep.equal([]);
  });
});
