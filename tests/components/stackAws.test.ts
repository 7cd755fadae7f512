// The stack's AWS config as the program's own AWS calls take it: what it honours, and a clear refusal of what
// it does not (the calls themselves, against the AWS fake: refreshWait.test.ts).
import { expect } from "chai";
import { stackAws } from "../../components/stackAws";

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

  it("refuses, naming them, the keys that would make it call as someone else or elsewhere", () => {
    expect(() => stackAws({ ...REGION, "aws:accessKey": "AKIA", "aws:secretKey": "s" })).to.throw(
      /^aws:accessKey, aws:secretKey are set, which the program's own AWS calls .* do not honour: they use aws:region, aws:profile and aws:assumeRoles\. Put the setting in an AWS profile/,
    );
    expect(() => stackAws({ ...REGION, "aws:endpoints": "[]" })).to.throw(/^aws:endpoints is set, /);
  });

  it("says what is wrong with a region or a role", () => {
    expect(() => stackAws({})).to.throw("aws:region is required");
    expect(() => stackAws({ ...REGION, "aws:assumeRoles": "arn:aws:iam::1:role/a" })).to.throw(
      "aws:assumeRoles must be a list of roles ({roleArn, ...}), not arn:aws:iam::1:role/a",
    );
    expect(() => stackAws({ ...REGION, "aws:assumeRoles": '{"roleArn":"x"}' })).to.throw(/must be a list of roles/);
    expect(() => stackAws({ ...REGION, "aws:assumeRoles": '[{"sessionName":"s"}]' })).to.throw(
      "aws:assumeRoles[0].roleArn is required: the ARN of the role to assume",
    );
    expect(() =>
      stackAws({ ...REGION, "aws:assumeRoles": '[{"roleArn":"arn:aws:iam::1:role/a","duration":"1 hour"}]' }),
    ).to.throw('aws:assumeRoles[0].duration: "1 hour" is not a duration such as 1h or 15m');
  });
});
