// Settings fixed once the stack is deployed: held to what its last update applied, read from its outputs.
import { expect } from "chai";
import { iamPathOf } from "../../components/appliedStateOutputs";
import { fixedSettingErrors } from "../../config/validation/fixedOnceDeployed";
import { formatWithFix } from "../../config/validation/report";
import { specWith } from "../fixtures";

const spec = specWith({ iam: { path: "/k8s/" }, network: { cidr: "10.50.0.0/16" } });
const valid = () => true;
const summary = (errors: ReturnType<typeof fixedSettingErrors>) =>
  errors.map((e) => [e.type, e.field, e.badValue, e.suggested?.value]);

describe("settings fixed once the stack is deployed", () => {
  it("reads the IAM path from a role ARN", () => {
    expect(iamPathOf("arn:aws:iam::123456789012:role/masters.dev.k8s.local")).to.equal("/");
    expect(iamPathOf("arn:aws:iam::123456789012:role/k8s/clusters/masters.dev.k8s.local")).to.equal("/k8s/clusters/");
    expect(iamPathOf("arn:aws-cn:iam::123456789012:role/k8s/nodes.dev.k8s.local")).to.equal("/k8s/");
    expect(iamPathOf("not-an-arn")).to.equal(undefined);
  });

  it("any value before the first update, the applied one after; another is refused, with the fix", () => {
    expect(fixedSettingErrors({}, spec, valid)).to.eql([]);
    expect(fixedSettingErrors({ iamPath: "/k8s/", networkCidr: "10.50.0.0/16" }, spec, valid)).to.eql([]);
    const errors = fixedSettingErrors({ iamPath: "/", networkCidr: "10.0.0.0/16" }, spec, valid);
    expect(summary(errors)).to.eql([
      ["Invalid value", "iam.path", "/k8s/", "/"],
      ["Invalid value", "network.cidr", "10.50.0.0/16", "10.0.0.0/16"],
    ]);
    // The fix, as printed, sets the applied value back.
    expect(formatWithFix(errors[0])).to.match(/\(fix: pulumi config set --path 'iam\.path' '\/'\)$/);
    expect(formatWithFix(errors[1])).to.match(/\(fix: pulumi config set --path 'network\.cidr' '10\.0\.0\.0\/16'\)$/);
  });

  it("a value that is itself invalid is reported by its own rule alone", () => {
    const errors = fixedSettingErrors({ iamPath: "/", networkCidr: "10.0.0.0/16" }, spec, (f) => f !== "network.cidr");
    expect(summary(errors).map(([, field]) => field)).to.eql(["iam.path"]);
  });
});
