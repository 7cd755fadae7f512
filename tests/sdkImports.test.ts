// Product code loads only the SDK namespaces it declares (`@pulumi/aws/ec2`, `@pulumi/kubernetes/core`),
// never a package root, which would load every namespace of the AWS or Kubernetes SDK; and the AWS SDK's
// clients only when pulumi up calls AWS itself.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { readFileSync } from "fs";
import { join } from "path";
import { compiledSources } from "../buildStamp";

const ROOT = join(__dirname, "..");
const ROOTS = ["@pulumi/aws", "@pulumi/kubernetes"];
/** Loaded only when `pulumi up` calls AWS itself (the control-plane member wait): never by a preview. */
const AWS_CLIENTS = ["@aws-sdk/client-auto-scaling", "@aws-sdk/client-sts"];

describe("SDK imports", () => {
  it("product code imports no AWS or Kubernetes SDK package root", () => {
    const files = compiledSources(ROOT).filter((f) => f.endsWith(".ts"));
    expect(files.length).to.be.greaterThan(50);
    const rootImports = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), "utf8").matchAll(/(?:from |import |require\()\s*"(@pulumi\/[a-z]+)"/g)]
        .filter((m) => ROOTS.includes(m[1]))
        .map((m) => `${file}: ${m[1]}`),
    );
    expect(rootImports).to.deep.equal([]);
  });

  it("loading the program loads neither package root, nor the AWS SDK clients it calls during pulumi up", () => {
    const script = `require(${JSON.stringify(join(ROOT, "program.ts"))});
const roots = ${JSON.stringify([...ROOTS, ...AWS_CLIENTS])}.map((r) => require.resolve(r));
process.stdout.write(JSON.stringify(roots.filter((r) => require.cache[r])));`;
    const r = spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(r.status, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal([]);
  });
});
