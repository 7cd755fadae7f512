// The API wait of pulumi up, run for real against local servers (one that never answers): ready, still
// starting, never ready, unreachable, and a deploying machine outside api.access. Then what config tells a
// preview.
import { expect } from "chai";
import { createServer, Server } from "http";
import { AddressInfo, createServer as createNetServer } from "net";
import { admitted, ApiTarget, ApiTiming, attemptOutcome, waitForApi } from "../../components/k8s/apiReady";
import { clusterAddons, deployerApi } from "../../components/k8s/clusterAddons";
import { deployerReachNotice, reachRemedies } from "../../components/k8s/reach";
import { main } from "../../cli/plan/cli";
import { specWith } from "../fixtures";
import { waitFor } from "../waitFor";
import { configWith, planWith } from "../planHelpers";
import * as pulumi from "@pulumi/pulumi";

/** An HTTP server answering each request with the next status (the last one repeats) or a fixed body. */
async function serve(statuses: number[], body = ""): Promise<{ url: string; server: Server; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    res.statusCode = statuses[Math.min(hits++, statuses.length - 1)];
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits: () => hits };
}

const TIMING: ApiTiming = { apiSilentLimitSeconds: 1, apiPollSeconds: 0.05, apiAttemptSeconds: 0.3 };
// Port 9 on loopback refuses: the path exists, the API is not there yet.
const REFUSING = "http://127.0.0.1:9";

/** What the waits told the update's display. */
let reports: string[] = [];

const wait = (target: Partial<ApiTarget>, timeoutSeconds = 5, timing = TIMING, lookup = `${REFUSING}/`) => {
  reports = [];
  return waitForApi(
    "the API after g",
    { url: `${REFUSING}/readyz`, caCertPem: "", access: [], remedies: "REMEDY", ...target },
    timeoutSeconds,
    timing,
    (message) => reports.push(message),
    lookup,
  );
};

describe("the API wait", () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));

  it("ends when /readyz answers 200, after answers that are not yet ready", async () => {
    const api = await serve([500, 503, 200]);
    servers.push(api.server);
    await wait({ url: `${api.url}/readyz` });
    expect(api.hits()).to.equal(3);
    // Once, while it waits.
    expect(reports).to.deep.equal([`waiting for ${api.url}/readyz to be ready (last: HTTP 500; at most 5s)`]);
  });

  it("keeps waiting while something answers, and then says what it waited for and that the control plane did not come up", async () => {
    const started = Date.now();
    const error = await wait({}, 1, { ...TIMING, apiSilentLimitSeconds: 0.2 }).catch((e: Error) => e);
    expect(Date.now() - started).to.be.greaterThan(900);
    expect(String(error)).to.match(
      /^Error: the API after g: http:\/\/127\.0\.0\.1:9\/readyz answered but did not become ready in 1s \(last: ECONNREFUSED\): the control plane did not come up/,
    );
    expect(String(error)).not.to.contain("REMEDY");
  });

  it("fails fast, with the remedy, when nothing answers at the endpoint's address", async function () {
    this.timeout(20000);
    // A listener that takes the connection and never answers, as a load balancer whose packets are dropped
    // does to a machine outside its network: every attempt times out, nothing ever answers.
    const silent = createNetServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as AddressInfo).port;
    const started = Date.now();
    const error = await wait({ url: `https://127.0.0.1:${port}/readyz` }, 1800).catch((e: Error) => e);
    silent.close();
    expect(Date.now() - started).to.be.lessThan(10000);
    expect(String(error)).to.match(
      /the API after g: nothing answered at 127\.0\.0\.1:\d+ for 1s .*cannot reach the API: REMEDY$/,
    );
  });

  it("fails at once when this machine's address is outside api.access, and goes on when it is inside", async () => {
    const lookup = await serve([200], "203.0.113.7\n");
    const api = await serve([200]);
    servers.push(lookup.server, api.server);
    const outside = await wait({ access: ["10.0.0.0/8"] }, 5, TIMING, lookup.url).catch((e: Error) => e);
    expect(String(outside)).to.match(
      /the API after g: this machine's address 203\.0\.113\.7 is not in api\.access \(10\.0\.0\.0\/8\).*: REMEDY$/,
    );
    expect(api.hits()).to.equal(0);
    await wait({ url: `${api.url}/readyz`, access: ["203.0.113.0/24"] }, 5, TIMING, lookup.url);
    expect(api.hits()).to.equal(1);
    expect(reports).to.deep.equal([]);
  });

  it("is the deployer's: the load balancer's /readyz, api.access checked only for a public API that limits it", async () => {
    const target = (edits: Record<string, unknown>) =>
      new Promise<ApiTarget | undefined>((resolve) => {
        const api = deployerApi(specWith(edits), "api.example", "CA");
        if (api) api.apply(resolve);
        else resolve(undefined);
      });
    await pulumi.runtime.setMocks({ newResource: () => ({ id: "x", state: {} }), call: () => ({}) }, "p", "s", true);
    expect(await target({ api: { access: ["203.0.113.0/24"] } })).to.deep.include({
      url: "https://api.example:443/readyz",
      caCertPem: "CA",
      access: ["203.0.113.0/24"],
    });
    expect((await target({ api: { access: ["0.0.0.0/0"] } }))?.access).to.deep.equal([]);
    expect((await target({ api: { loadBalancer: "internal", access: ["10.0.0.0/8"] } }))?.access).to.deep.equal([]);
    expect(await target({ addons: { applyFrom: "controlPlane" } })).to.equal(undefined);
  });
});

describe("the Kubernetes provider", () => {
  /** When the provider registers, and with what kubeconfig, while the one member wait takes 200 ms. */
  async function provider(preview: boolean): Promise<{ waitDone: boolean; kubeconfig: unknown }> {
    let seen: { waitDone: boolean; kubeconfig: unknown } | undefined;
    let waitDone = false;
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          if (args.type === "pulumi:providers:kubernetes") seen = { waitDone, kubeconfig: args.inputs.kubeconfig };
          return { id: `${args.name}-id`, state: args.inputs };
        },
        call: () => ({}),
      },
      "project",
      "stack",
      preview,
    );
    const wait = pulumi.output(
      new Promise<string>((resolve) =>
        setTimeout(() => {
          waitDone = true;
          resolve("g");
        }, 200),
      ),
    );
    clusterAddons({
      // An API anyone may reach: no warning that this machine must be in api.access (tested above).
      spec: specWith({ api: { access: ["0.0.0.0/0"] } }),
      kubeconfig: "KUBECONFIG",
      controlPlane: [],
      controlPlaneGroupNames: [],
      membersReplaced: [wait],
    });
    await waitFor("the Kubernetes provider", () => seen !== undefined, 2_000);
    return seen!;
  }

  it("is configured, during pulumi up, only once the control plane's member waits are done", async () => {
    expect(await provider(false)).to.deep.equal({ waitDone: true, kubeconfig: "KUBECONFIG" });
  });

  it("is configured at once in a preview, with the kubeconfig as it is", async () => {
    expect(await provider(true)).to.deep.equal({ waitDone: false, kubeconfig: "KUBECONFIG" });
  });
});

describe("what a preview says about reaching the API", () => {
  it("says nothing when anyone may reach a public API", () => {
    expect(deployerReachNotice(specWith({ api: { access: ["0.0.0.0/0"] } }))).to.equal(undefined);
  });

  it("names each limit and the way out", () => {
    const internal = deployerReachNotice(specWith({ api: { loadBalancer: "internal", access: ["172.20.0.0/16"] } }));
    expect(internal).to.match(/api\.loadBalancer is internal/);
    expect(internal).to.match(/api\.access admits only 172\.20\.0\.0\/16/);
    expect(internal).to.contain("run pulumi up from inside the VPC");
    const listed = specWith({ api: { access: ["203.0.113.0/24", "198.51.100.10/32"] } });
    expect(deployerReachNotice(listed)).not.to.match(/internal/);
    expect(reachRemedies(listed)).to.contain("pulumi config set --path 'api.access[2]' <address>/32");
    expect(reachRemedies(listed)).to.contain("pulumi config set --path addons.applyFrom controlPlane");
    const fromControlPlane = { addons: { applyFrom: "controlPlane" }, api: { loadBalancer: "internal" } };
    expect(deployerReachNotice(specWith(fromControlPlane))).to.equal(undefined);
  });

  it("is logged as a warning by the program, which npm run plan prints", async () => {
    const plan = await planWith({}, configWith({ "api.loadBalancer": "internal" }));
    expect(plan.warnings).to.have.length(1);
    expect(plan.warnings[0]).to.match(/^pulumi up applies the add-ons .*api\.loadBalancer is internal/);
    let err = "";
    await main(["--set", "api.loadBalancer=internal"], { out: () => undefined, err: (t) => (err += t) });
    expect(err).to.equal(`warning: ${plan.warnings[0]}\n`);
  });

  it("checks addresses against CIDRs and reads connection failures", () => {
    expect(admitted("203.0.113.7", ["10.0.0.0/8", "203.0.113.0/24"])).to.equal(true);
    expect(admitted("203.0.114.7", ["203.0.113.0/24"])).to.equal(false);
    expect(admitted("not-an-address", ["0.0.0.0/0"])).to.equal(false);
    expect(admitted("198.51.100.10", ["198.51.100.10/32"])).to.equal(true);
    expect(admitted("198.51.100.11", ["198.51.100.10/32"])).to.equal(false);
    expect(admitted("8.8.8.8", ["0.0.0.0/0"])).to.equal(true);
    expect(admitted("10.255.0.1", ["10.0.0.0/9"])).to.equal(false);
    for (const code of ["TIMEOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND"])
      expect(attemptOutcome(code)).to.equal("silent");
    for (const code of ["ECONNREFUSED", "ECONNRESET", "DEPTH_ZERO_SELF_SIGNED_CERT", undefined])
      expect(attemptOutcome(code)).to.equal("answered");
  });
});
