// `npm run build:kubernetes`: builds the real Kubernetes and etcd binaries the tests run, from their Go
// modules at the versions the program deploys, into the cache outside the clone (CILIUM_CLUSTER_CACHE, by default
// ~/.cache/cilium-cluster), kubernetes/<version>/, so a fresh clone builds nothing again. Each module
// is a folder tools/<component>/<version>/ whose tools.go names the commands; a binary already built from
// the same go.sum is skipped, and the rest of a module's commands are built by one `go build`, two modules at
// a time. Needs the Go toolchain and the Go module proxy; a cold build takes minutes.
/* global require, __dirname, process */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, run by plain Node */
"use strict";
const { execFileSync, spawn, spawnSync } = require("child_process");
const { createHash } = require("crypto");
const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require("fs");
const { join } = require("path");
const { homedir } = require("os");

const root = join(__dirname, "..");
const toolsDir = join(root, "tools");
const cacheDir = join(process.env.CILIUM_CLUSTER_CACHE || join(homedir(), ".cache", "cilium-cluster"), "kubernetes");

/** The name `go build -o <dir>/` gives a command: its package's last element, without a major-version suffix. */
const goName = (pkg) =>
  pkg
    .replace(/\/v\d+$/, "")
    .split("/")
    .pop();

/** A command's binary name: Go's name for it, but etcd's server module builds `etcd`. */
const binaryName = (pkg) => (goName(pkg) === "server" ? "etcd" : goName(pkg));

/**
 * A module's optional build.json: Go build tags (Cilium's operator-aws is its operator built with
 * `ipam_provider_aws`), and binary names by package where the package's own name is not the command's.
 */
function buildOptions(dir) {
  const file = join(dir, "build.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
}

/** Each command to build: its module folder, package, version, build tags and the binary it becomes. */
function commands() {
  return readdirSync(toolsDir).flatMap((component) =>
    readdirSync(join(toolsDir, component)).flatMap((version) => {
      const dir = join(toolsDir, component, version);
      const { tags = [], binaries = {} } = buildOptions(dir);
      const imports = [...readFileSync(join(dir, "tools.go"), "utf8").matchAll(/_ "([^"]+)"/g)].map((m) => m[1]);
      return imports.map((pkg) => ({ component, version, dir, pkg, tags, binary: binaries[pkg] ?? binaryName(pkg) }));
    }),
  );
}

/** Kubernetes binaries carry their version in ldflags, as hack/lib/version.sh sets them. */
function ldflags({ component, version, dir }) {
  if (component !== "kubernetes") return "-s -w";
  const info = JSON.parse(
    execFileSync("go", ["mod", "download", "-json", `k8s.io/kubernetes@${version}`], { cwd: dir, encoding: "utf8" }),
  );
  const [major, minor] = version.slice(1).split(".");
  const fields = {
    gitVersion: version,
    gitMajor: major,
    gitMinor: minor,
    gitCommit: info.Origin?.Hash ?? "",
    gitTreeState: "clean",
    buildDate: JSON.parse(readFileSync(info.Info, "utf8")).Time.replace(/\.\d+/, ""),
  };
  const sets = ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) =>
    Object.entries(fields).map(([k, v]) => `-X ${pkg}.${k}=${v}`),
  );
  return ["-s", "-w", ...sets].join(" ");
}

const sumOf = (dir) =>
  createHash("sha256")
    .update(readFileSync(join(dir, "go.sum")))
    .update(existsSync(join(dir, "build.json")) ? readFileSync(join(dir, "build.json")) : "")
    .update(execFileSync("go", ["env", "GOVERSION"], { encoding: "utf8" }))
    .digest("hex");

/** Two builds at once: one links (mostly on one core) while the other compiles. */
const parallelBuilds = 2;

/** Builds one module's missing commands in one `go build`, so they share its package loading and compiles. */
function buildModule(commands) {
  const [{ component, version, dir, tags }] = commands;
  const outDir = join(cacheDir, version);
  const work = join(outDir, `.build-${component}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const label = `${component} ${version} (${commands.map((c) => c.binary).join(", ")})`;
  process.stdout.write(`${label}: building ...\n`);
  const t0 = Date.now();
  const args = ["build", "-trimpath", "-buildvcs=false", `-tags=${tags.join(",")}`, `-ldflags=${ldflags(commands[0])}`];
  const go = spawn("go", [...args, "-o", `${work}/`, ...commands.map((c) => c.pkg)], {
    cwd: dir,
    stdio: "inherit",
    env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" },
  });
  return new Promise((resolve) => go.on("exit", resolve)).then((status) => {
    if (status !== 0) {
      process.stderr.write(`${label}: go build failed (needs Go and the Go module proxy)\n`);
      process.exit(status ?? 1);
    }
    const sum = sumOf(dir);
    for (const { pkg, binary } of commands) {
      renameSync(join(work, goName(pkg)), join(outDir, binary));
      writeFileSync(join(outDir, `${binary}.source`), sum);
    }
    rmSync(work, { recursive: true });
    process.stdout.write(`${label}: built in ${Math.round((Date.now() - t0) / 1000)} s\n`);
  });
}

async function main() {
  if (spawnSync("go", ["version"]).status !== 0) {
    process.stderr.write("build:kubernetes needs the Go toolchain (1.25 or newer) on PATH and the Go module proxy\n");
    process.exit(1);
  }
  const started = Date.now();
  const missing = new Map();
  for (const command of commands()) {
    const out = join(cacheDir, command.version, command.binary);
    const stamp = `${out}.source`;
    if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, "utf8") === sumOf(command.dir)) {
      process.stdout.write(`${command.binary} ${command.version}: already built\n`);
      continue;
    }
    missing.set(command.dir, [...(missing.get(command.dir) ?? []), command]);
  }
  // The largest modules (by go.sum) first, so the last build to finish is a small one.
  const queue = [...missing.values()].sort(
    (a, b) => statSync(join(b[0].dir, "go.sum")).size - statSync(join(a[0].dir, "go.sum")).size,
  );
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await buildModule(next);
  };
  await Promise.all(Array.from({ length: parallelBuilds }, worker));
  process.stdout.write(`binaries in ${cacheDir} (${Math.round((Date.now() - started) / 1000)} s)\n`);
}

main();
