// The stack's AWS config as the program's own AWS calls take it: what it honours, and a clear refusal of what
// it does not (the calls themselves, against the AWS fake: refreshWait.test.ts).
import { expect } from "chai";
import { stackAws } from "../../components/stackAws";
import { stackAwsErrors } from "../../config/validation/stackAwsConfig";
import { formatWithFix } from "../../config/validation/report";

const REGION = { "aws:region": "us-east-1" };

describe("the stack's AWS config", () => {
  it("takes the region and profile, else the SDK's default chain", () => {
    const profiled = stackAws({ ...REGION, "aws:profile": "deploy" });
    expect(profiled).to.include({ region: "us-east-1", profile: "deploy", credentials: undefined });
    expect(profiled.description).to.equal("region us-east-1, profile deploy");
    const ambient = stackAws({ ...REGION, "aws:defaultTags": "{}", "aws:skipCredentialsValidation": "true" });
    expect(ambient).to.include({ region: "us-east-1", profile: undefined, credentials: undefined });
    expect(ambient.description).to.equal("region us-east-1, the default credential chain");
  });

  it("assumes aws:assumeRoles: credentials the SDK asks for, named in the description", () => {
    const roles = [{ roleArn: "arn:aws:iam::111111111111:role/a" }, { roleArn: "arn:aws:iam::222222222222:role/b" }];
    const aws = stackAws({ ...REGION, "aws:assumeRoles": JSON.stringify(roles) });
    expect(aws.credentials).to.be.a("function");
    expect(aws.description).to.equal(
      "region us-east-1, the default credential chain, assuming arn:aws:iam::111111111111:role/a, " +
        "assuming arn:aws:iam::222222222222:role/b",
    );
  });

  it("refuses, every one at once with its fix, the keys that would make it call as someone else or elsewhere, and roles it cannot assume", () => {
    const errors = stackAwsErrors({
      ...REGION,
      "aws:accessKey": "AKIA",
      "aws:endpoints": "[]",
      "aws:assumeRoles": '[{"sessionName":"s"},{"roleArn":"arn:aws:iam::1:role/a","duration":"1 hour"}]',
    });
    expect(errors.map(formatWithFix)).to.deep.equal([
      "aws:accessKey: Forbidden: the program's own AWS calls during pulumi up (the control-plane member wait) use aws:region, aws:profile and aws:assumeRoles only: put this setting in an AWS profile (~/.aws/config, ~/.aws/credentials) and set aws:profile to it (fix: pulumi config rm aws:accessKey)",
      "aws:endpoints: Forbidden: the program's own AWS calls during pulumi up (the control-plane member wait) use aws:region, aws:profile and aws:assumeRoles only: put this setting in an AWS profile (~/.aws/config, ~/.aws/credentials) and set aws:profile to it (fix: pulumi config rm aws:endpoints)",
      "aws:assumeRoles[0].roleArn: Required value: the ARN of the role to assume (fix: pulumi config set --path 'aws:assumeRoles[0].roleArn' <value>)",
      `aws:assumeRoles[1].duration: Invalid value: "1 hour": a duration such as 1h or 15m (fix: pulumi config set --path 'aws:assumeRoles[1].duration' <value>)`,
    ]);
    expect(stackAwsErrors({ ...REGION, "aws:assumeRoles": '{"roleArn":"x"}' }).map((e) => e.field)).to.deep.equal([
      "aws:assumeRoles",
    ]);
    // The calls never start with them.
    expect(() => stackAws({ ...REGION, "aws:accessKey": "AKIA" })).to.throw(/^aws:accessKey: Forbidden/);
    expect(() => stackAws({})).to.throw("aws:region is required");
  });
});
