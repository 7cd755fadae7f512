// ApiReady's wait, run for real against local servers (one that never answers): ready, still starting,
// never ready, unreachable, and a deploying machine outside api.access. Then what config tells a preview.
import { expect } from "chai";
import { createServer, Server } from "http";
import { mkdtempSync, writeFileSync } from "fs";
import { AddressInfo, createServer as createNetServer } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { admitted, ApiReadyInputs, apiReadyProvider, attemptOutcome } from "../../components/k8s/apiReady";
import { deployerReachNotice, reachRemedies } from "../../components/k8s/reach";
import { main } from "../../plan/cli";
import { forcesReplacement } from "../../plan/replaceKeys";
import { specWith } from "../fixtures";
import { configWith, inputs, named, planWith } from "../planHelpers";

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

const wait = (overrides: Partial<ApiReadyInputs>) =>
  apiReadyProvider.create({
    url: "http://127.0.0.1:9/readyz",
    caCertPem: "",
    timeoutSeconds: 5,
    silentLimitSeconds: 1,
    access: [],
    remedies: "REMEDY",
    addressLookupUrl: "http://127.0.0.1:9/",
    pollSeconds: 0.05,
    attemptSeconds: 0.3,
    ...overrides,
  } satisfies ApiReadyInputs);

describe("ApiReady's wait", () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));

  it("ends when /readyz answers 200, after answers that are not yet ready", async () => {
    const api = await serve([500, 503, 200]);
    servers.push(api.server);
    const result = await wait({ url: `${api.url}/readyz` });
    expect(result.id).to.equal(`${api.url}/readyz`);
    expect(api.hits()).to.equal(3);
  });

  it("keeps waiting while something answers, and then says the control plane did not come up", async () => {
    // Port 9 on loopback refuses: the path exists, the API is not there yet.
    const started = Date.now();
    const error = await wait({ silentLimitSeconds: 0.2, timeoutSeconds: 1 }).catch((e: Error) => e);
    expect(Date.now() - started).to.be.greaterThan(900);
    expect(String(error)).to.match(/answered but did not become ready in 1s \(last: ECONNREFUSED\)/);
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
    const error = await wait({ url: `https://127.0.0.1:${port}/readyz`, timeoutSeconds: 1800 }).catch((e: Error) => e);
    silent.close();
    expect(Date.now() - started).to.be.lessThan(10000);
    expect(String(error)).to.match(/nothing answered at 127\.0\.0\.1:\d+ for 1s .*cannot reach the API .*: REMEDY/);
  });

  it("fails at once when this machine's address is outside api.access, and goes on when it is inside", async () => {
    const lookup = await serve([200], "203.0.113.7\n");
    const api = await serve([200]);
    servers.push(lookup.server, api.server);
    const outside = await wait({ access: ["10.0.0.0/8"], addressLookupUrl: lookup.url }).catch((e: Error) => e);
    expect(String(outside)).to.match(/address 203\.0\.113\.7 is not in api\.access \(10\.0\.0\.0\/8\).*: REMEDY/);
    const inside = await wait({ url: `${api.url}/readyz`, access: ["203.0.113.0/24"], addressLookupUrl: lookup.url });
    expect(inside.id).to.equal(`${api.url}/readyz`);
  });

  it("works as the engine runs it: serialized, loaded on its own, in a fresh module", async () => {
    const plan = await planWith();
    const serialized = inputs(named(plan, "pulumi-nodejs:dynamic:Resource", "api-ready")).__provider as string;
    const file = join(mkdtempSync(join(tmpdir(), "api-ready-")), "provider.js");
    writeFileSync(file, serialized);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const provider = (require(file) as { handler(): typeof apiReadyProvider }).handler();
    const lookup = await serve([200], "203.0.113.7");
    const api = await serve([200]);
    servers.push(lookup.server, api.server);
    const base = { caCertPem: "", timeoutSeconds: 5, silentLimitSeconds: 1, remedies: "REMEDY", pollSeconds: 0.05 };
    const inside = { ...base, url: `${api.url}/readyz`, access: ["203.0.113.0/24"], addressLookupUrl: lookup.url };
    expect((await provider.create({ ...inside, attemptSeconds: 1 })).id).to.equal(`${api.url}/readyz`);
    const outside = { ...inside, access: ["10.0.0.0/8"], attemptSeconds: 1 };
    expect(String(await provider.create(outside).catch((e: Error) => e))).to.contain("not in api.access");
  });

  it("waits again only when the endpoint moves", async () => {
    const base = { url: "https://a/readyz", access: [] } as unknown as ApiReadyInputs;
    expect(await apiReadyProvider.diff!("id", base, { ...base, access: ["10.0.0.0/8"] })).to.deep.equal({
      changes: false,
      replaces: [],
    });
    expect(await apiReadyProvider.diff!("id", base, { ...base, url: "https://b/readyz" })).to.deep.equal({
      changes: true,
      replaces: ["url"],
    });
  });
  it("is replaced, in the plan's table too, exactly when its diff says so, input by input", async () => {
    const base: ApiReadyInputs = {
      url: "https://a/readyz",
      caCertPem: "CA",
      timeoutSeconds: 1800,
      silentLimitSeconds: 600,
      access: [],
      remedies: "REMEDY",
      addressLookupUrl: "https://checkip.example",
      pollSeconds: 10,
      attemptSeconds: 10,
    };
    const edits: Partial<ApiReadyInputs> = {
      url: "https://b/readyz",
      caCertPem: "CA2",
      timeoutSeconds: 60,
      silentLimitSeconds: 5,
      access: ["10.0.0.0/8"],
      remedies: "OTHER",
      addressLookupUrl: "https://other.example",
      pollSeconds: 1,
      attemptSeconds: 1,
    };
    for (const [key, value] of Object.entries(edits)) {
      const diff = await apiReadyProvider.diff!("id", base, { ...base, [key]: value });
      expect(forcesReplacement("pulumi-nodejs:dynamic:Resource", key), key).to.equal(diff.replaces!.includes(key));
    }
  });
});

describe("what a preview says about reaching the API", () => {
  it("says nothing when anyone may reach a public API", () => {
    expect(deployerReachNotice(specWith({}))).to.equal(undefined);
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
