// The cluster CA's certificate, which the first control-plane node makes and stores: read by pulumi up once
// the first control-plane group is in place (against the AWS fake, tests/standins/aws.ts, reached through
// AWS_ENDPOINT_URL), and in a preview taken from what the last update read.
import { expect } from "chai";
import * as pulumi from "@pulumi/pulumi";
import { CaTiming, clusterCaCertificate, waitForClusterCa } from "../../components/controlPlane/clusterCaCertificate";
import { stackAws } from "../../components/stackAws";
import { runPlan, UNKNOWN } from "../../cli/plan/run";
import { configWith, inputs, named, planWith } from "../planHelpers";
import { mockRuntime, groupInPlace } from "./deployWaitFixtures";
import { sdkEnvironment, startAws } from "../standins/aws";

const REGION = "us-east-1";
const STACK_KEY = "AKIASTACKPROFILE";
const STACK_AWS = { "aws:region": REGION, "aws:profile": "stack" };
const FAST: CaTiming = { memberReplacementSeconds: 1, refreshPollSeconds: 0.05 };
const PARAMETER = "/cilium-cluster/dev.k8s.local/node/cluster-ca-0123456789ab";
const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";

/** The output's value, or "unknown" when a preview cannot know it. */
const settled = <T>(output: pulumi.Output<T>): Promise<T | "unknown"> =>
  new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const internal = output as any;
    Promise.all([internal.promise(), internal.isKnown]).then(
      ([value, known]) => resolve(known ? value : "unknown"),
      reject,
    );
  });

describe("the cluster CA's certificate", () => {
  const closing: (() => unknown)[] = [];
  let restore: (() => void) | undefined;
  afterEach(async () => {
    restore?.();
    restore = undefined;
    for (const close of closing.splice(0)) await close();
  });

  it("pulumi up waits until the first node has stored it, reading it with the stack's AWS config", async () => {
    await mockRuntime(false);
    const aws = await startAws({ region: REGION });
    closing.push(aws.close);
    restore = sdkEnvironment(aws, { stack: STACK_KEY });
    // Stored once the third read has found nothing.
    let asked = 0;
    aws.afterCall("ssm:GetParameter", (p) => {
      if (p.Name === PARAMETER && ++asked === 3) aws.putParameter(PARAMETER, PEM, "String");
    });
    const ca = clusterCaCertificate(pulumi.output(PARAMETER), groupInPlace("g"), undefined, stackAws(STACK_AWS), FAST);
    expect(await settled(ca)).to.equal(PEM);
    const reads = aws.calls.filter((c) => c.action === "ssm:GetParameter");
    expect(reads.map((c) => [c.params.Name, c.caller, c.region, c.refused])).to.deep.equal([
      ...Array(3).fill([PARAMETER, STACK_KEY, REGION, "ParameterNotFound"]),
      [PARAMETER, STACK_KEY, REGION, undefined],
    ]);
  });

  it("pulumi up stops at the deadline, saying which node did not create the cluster", async () => {
    await mockRuntime(false);
    const aws = await startAws({ region: REGION });
    closing.push(aws.close);
    restore = sdkEnvironment(aws, { stack: STACK_KEY });
    const error = await waitForClusterCa(PARAMETER, stackAws(STACK_AWS), FAST).catch((e: Error) => e.message);
    expect(error).to.equal(
      `the cluster's CA certificate in ${PARAMETER}: not stored after 1s: the first control-plane node did not ` +
        "create the cluster; read its console output (docs/operations.md)",
    );
  });

  it("a preview takes the one the last update read, and before the first update cannot know it", async () => {
    await mockRuntime(true);
    const unused = stackAws(STACK_AWS);
    expect(await settled(clusterCaCertificate(pulumi.output(PARAMETER), groupInPlace("a"), PEM, unused))).to.equal(PEM);
    expect(
      await settled(clusterCaCertificate(pulumi.output(PARAMETER), groupInPlace("b"), undefined, unused)),
    ).to.equal("unknown");
  });

  it("the plan of a deployed stack gives the Kubernetes provider the applied certificate; a new stack's is unknown", async () => {
    const provider = (plan: Awaited<ReturnType<typeof planWith>>) =>
      inputs(named(plan, "pulumi:providers:kubernetes", "kubernetes")).kubeconfig;
    const fresh = await planWith();
    expect(provider(fresh)).to.equal(UNKNOWN);
    expect(fresh.outputs.apiCaCertificate).to.equal(UNKNOWN);
    const deployed = await runPlan(configWith({}), "test", true, { ...fresh.outputs, apiCaCertificate: PEM });
    expect(String(provider(deployed))).to.contain(
      `certificate-authority-data: ${Buffer.from(PEM).toString("base64")}\n`,
    );
    expect(deployed.outputs.apiCaCertificate).to.equal(PEM);
  });
});
