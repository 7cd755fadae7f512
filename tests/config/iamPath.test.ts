// iam.path is held to the path the stack's roles are at, read from the role ARN the stack last output.
import { expect } from "chai";
import { iamPathOf } from "../../components/appliedState";
import { iamPathErrors } from "../../config/validation/iamPath";
import { formatWithFix } from "../../config/validation/report";

describe("iam.path on a deployed stack", () => {
  it("reads the path from a role ARN", () => {
    expect(iamPathOf("arn:aws:iam::123456789012:role/masters.dev.k8s.local")).to.equal("/");
    expect(iamPathOf("arn:aws:iam::123456789012:role/k8s/clusters/masters.dev.k8s.local")).to.equal("/k8s/clusters/");
    expect(iamPathOf("arn:aws-cn:iam::123456789012:role/k8s/nodes.dev.k8s.local")).to.equal("/k8s/");
    expect(iamPathOf("not-an-arn")).to.equal(undefined);
  });

  it("accepts any path before the first update and the same path after; refuses another, with the fix", () => {
    expect(iamPathErrors(undefined, "/k8s/")).to.eql([]);
    expect(iamPathErrors("/k8s/", "/k8s/")).to.eql([]);
    const errors = iamPathErrors("/", "/k8s/");
    expect(errors.map((e) => [e.type, e.field, e.badValue, e.suggested?.value])).to.eql([
      ["Invalid value", "iam.path", "/k8s/", "/"],
    ]);
    // The fix, as printed, sets the path back.
    expect(formatWithFix(errors[0])).to.match(/\(fix: pulumi config set --path 'iam\.path' '\/'\)$/);
  });
});
