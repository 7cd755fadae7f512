// The cluster's admin role, simulated with its real trust policy: who may assume it (`api.admins`, else the
// account's principals that IAM allows) and so who may be cluster-admin, and that dropping a principal from
// `api.admins` takes its access away. That an assumed session becomes cluster-admin: the box
// (tests/box/cluster.test.ts).
import { expect } from "chai";
import { adminRoleName, adminTrustPolicy } from "../../components/adminAccess/adminRoleFacts";
import type { PolicyDocument } from "../../components/iam/policyDocument";
import type { AwsCoordinates } from "../../components/iam/statementSource";
import { ACCOUNT_ID, may } from "../iamSimulator";

const AT: AwsCoordinates = { partition: "aws", region: "us-east-1", accountId: ACCOUNT_ID };
const ROLE = `arn:aws:iam::${ACCOUNT_ID}:role/${adminRoleName("dev.k8s.local")}`;
const ALICE = `arn:aws:iam::${ACCOUNT_ID}:role/alice`;
const BOB = `arn:aws:iam::${ACCOUNT_ID}:role/bob`;
const OUTSIDER = "arn:aws:iam::111111111111:role/admin";
/** An identity policy allowing sts:AssumeRole on every role: an account administrator's. */
const ASSUME_ANY: PolicyDocument = {
  Version: "2012-10-17",
  Statement: [{ Sid: "AssumeAny", Effect: "Allow", Action: ["sts:AssumeRole"], Resource: "*" }],
};
const NOTHING: PolicyDocument = { Version: "2012-10-17", Statement: [] };

const assumes = (admins: string[], principal: string, identity: PolicyDocument) =>
  may(identity, "sts:AssumeRole", ROLE, {}, { principal, resourcePolicy: adminTrustPolicy(admins, AT) });

describe("the cluster's admin role", () => {
  it("lets the principals of api.admins assume it, no one else, whatever their IAM policies", async () => {
    expect(await assumes([ALICE], ALICE, NOTHING), "alice, named").to.equal(true);
    expect(await assumes([ALICE], BOB, ASSUME_ANY), "bob, an administrator not named").to.equal(false);
    expect(await assumes([ALICE], OUTSIDER, ASSUME_ANY), "another account's").to.equal(false);
  });

  it("takes the role away from a principal dropped from api.admins", async () => {
    expect(await assumes([ALICE, BOB], BOB, ASSUME_ANY)).to.equal(true);
    expect(await assumes([ALICE], BOB, ASSUME_ANY)).to.equal(false);
  });

  it("with api.admins empty, lets the account's principals whose IAM allows it assume it, and no one else", async () => {
    expect(await assumes([], BOB, ASSUME_ANY), "an account administrator").to.equal(true);
    expect(await assumes([], ALICE, NOTHING), "an account principal without the grant").to.equal(false);
    expect(await assumes([], OUTSIDER, ASSUME_ANY), "another account's administrator").to.equal(false);
  });
});
