// Product code loads only the SDK namespaces it declares (`@pulumi/aws/ec2`, `@pulumi/kubernetes/core`),
// never a package root, which would load every namespace of the AWS or Kubernetes SDK; and the AWS SDK's
// clients only when pulumi up calls AWS itself.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { readFileSync } from "fs";
import { join } from "path";
import { BUILD_DIR, compiledSources } from "../buildStamp";

const ROOT = join(__dirname, "..");
const ROOTS = ["@pulumi/aws", "@pulumi/kubernetes"];
/** Loaded only when `pulumi up` calls AWS itself (the control-plane member wait): never by a preview. */
const AWS_CLIENTS = ["@aws-sdk/client-auto-scaling", "@aws-sdk/client-sts"];
/** A package's root named in an import, an export, a dynamic import or a require, with either quote. */
const MODULE_SPECIFIER = /(?:from|import|require)\s*\(?\s*["'](@pulumi\/[a-z]+)(?:\/index(?:\.js)?)?["']/g;

describe("SDK imports", () => {
  it("product code imports no AWS or Kubernetes SDK package root", () => {
    const files = compiledSources(ROOT).filter((f) => f.endsWith(".ts"));
    expect(files.length).to.be.greaterThan(50);
    const rootImports = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), "utf8").matchAll(MODULE_SPECIFIER)]
        .filter((m) => ROOTS.includes(m[1]))
        .map((m) => `${file}: ${m[1]}`),
    );
    expect(rootImports).to.deep.equal([]);
  });

  it("a plan of the dev stack loads neither package root, nor the AWS SDK clients it calls during pulumi up", () => {
    // The compiled plan (npm test builds it first), as `npm run plan` runs it: the program, run as a preview.
    const script = `const roots = ${JSON.stringify([...ROOTS, ...AWS_CLIENTS])}.map((r) => require.resolve(r));
process.on("exit", () => process.stdout.write("\\n" + JSON.stringify(roots.filter((r) => require.cache[r]))));
process.argv.push("plan.js");
require("./${BUILD_DIR}/scripts/plan.js");`;
    const r = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^Resources: \d+ to create$/m);
    expect(JSON.parse(r.stdout.trim().split("\n").pop()!)).to.deep.equal([]);
  });
});
