/**
 * The AWS calls in the code of the cloud controller manager the box runs (k8s.io/cloud-provider-aws, its
 * pkg/providers/v1, from the module `npm run build:kubernetes` downloads): each is granted to the
 * control-plane role, but those of code the program turns off, each named with why. A release that starts
 * calling something new fails here before a Service does in a real account.
 */
import { expect } from "chai";
import { execFileSync } from "child_process";
import { existsSync, readdirSync, readFileSync } from "fs";
import { join } from "path";
import type { AwsCoordinates } from "../../components/iam/statementSource";
import { cannotRun } from "../cannotRun";
import { ACCOUNT_ID, attachedPolicies } from "../iamSimulator";
import { specWith } from "../fixtures";

const MODULE = join(__dirname, "..", "..", "tools", "cloud-provider-aws", "v1.35.3");
const AT: AwsCoordinates = { partition: "aws", region: "us-east-1", accountId: ACCOUNT_ID };

/** The SDK clients' fields in pkg/providers/v1, by the IAM service prefix of their calls. */
const SERVICES: Record<string, string> = { ec2: "ec2", elb: "elasticloadbalancing", elbv2: "elasticloadbalancing" };

/** Calls in code the program's configuration never reaches. */
const NOT_REACHED: Record<string, string> = {
  "ec2:CreateRoute": "the route controller is off (--configure-cloud-routes=false): aws_routes.go",
  "ec2:DeleteRoute": "the route controller is off: aws_routes.go",
  "ec2:ModifyInstanceAttribute": "only the route controller turns source/destination checks off: aws_routes.go",
  "ec2:DeleteTags": "only the tagging controller, off by default (cmd/aws-cloud-controller-manager/main.go): tags.go",
  "ec2:DescribeNetworkInterfaces": "a wrapper of the SDK nothing calls: aws_ec2.go",
};

/** The module's directory, or undefined when it is not downloaded (or Go is missing). */
function moduleDir(): string | undefined {
  try {
    const dir = execFileSync("go", ["list", "-m", "-f", "{{.Dir}}", "k8s.io/cloud-provider-aws"], {
      cwd: MODULE,
      encoding: "utf8",
      env: { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off" },
    }).trim();
    return dir && existsSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

describe("the cloud controller manager's AWS calls", () => {
  it("are each granted to the control-plane role, or in code the program turns off", function () {
    const dir = moduleDir();
    if (!dir) cannotRun(this, "k8s.io/cloud-provider-aws is not downloaded: npm run build:kubernetes");
    const providers = join(dir!, "pkg", "providers", "v1");
    const code = readdirSync(providers)
      .filter((f) => f.endsWith(".go") && !f.endsWith("_test.go") && !/fake|mock/.test(f))
      .map((f) => readFileSync(join(providers, f), "utf8"))
      .join("\n");
    const called = new Set(
      [...code.matchAll(/\.(ec2|elbv2|elb)\.([A-Z]\w+)\(/g)].map(([, client, call]) => `${SERVICES[client]}:${call}`),
    );
    expect(called.size, "calls found").to.be.greaterThan(40);
    const granted = new Set(
      attachedPolicies("control-plane", specWith({}), AT).flatMap((p) =>
        p.Statement.filter((s) => s.Effect === "Allow").flatMap((s) => [s.Action].flat()),
      ),
    );
    const missing = [...called].filter((a) => !granted.has(a) && !(a in NOT_REACHED)).sort();
    expect(missing, "called but not granted").to.deep.equal([]);
    // Each exception is still called (or it goes from the list).
    for (const action of Object.keys(NOT_REACHED))
      expect(called.has(action), `${action} is still called`).to.equal(true);
  });
});
