// `npm run build:kubernetes`: builds the real Kubernetes and etcd binaries the tests run, from their Go
// modules at the versions the program deploys, into the cache outside the clone (CILIUM_CLUSTER_CACHE, by default
// ~/.cache/cilium-cluster), kubernetes/<version>/, so a fresh clone builds nothing again. Each module
// is a folder tools/<component>/<version>/ whose tools.go names the commands; a binary already built from
// the same go.sum is skipped. Needs the Go toolchain and the Go module proxy; a cold build takes minutes.
/* global require, __dirname, process */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, run by plain Node */
"use strict";
const { execFileSync, spawnSync } = require("child_process");
const { createHash } = require("crypto");
const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } = require("fs");
const { join } = require("path");
const { homedir } = require("os");

const root = join(__dirname, "..");
const toolsDir = join(root, "tools");
const cacheDir = join(process.env.CILIUM_CLUSTER_CACHE || join(homedir(), ".cache", "cilium-cluster"), "kubernetes");

/** A command's binary name: its package's last element, but etcd's server module builds `etcd`. */
function binaryName(pkg) {
  const name = pkg
    .replace(/\/v\d+$/, "")
    .split("/")
    .pop();
  return name === "server" ? "etcd" : name;
}

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

function main() {
  if (spawnSync("go", ["version"]).status !== 0) {
    process.stderr.write("build:kubernetes needs the Go toolchain (1.25 or newer) on PATH and the Go module proxy\n");
    process.exit(1);
  }
  const all = commands();
  const started = Date.now();
  all.forEach((command, i) => {
    const outDir = join(cacheDir, command.version);
    const out = join(outDir, command.binary);
    const stamp = `${out}.source`;
    const sum = sumOf(command.dir);
    const label = `[${i + 1}/${all.length}] ${command.binary} ${command.version}`;
    if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, "utf8") === sum) {
      process.stdout.write(`${label}: already built\n`);
      return;
    }
    mkdirSync(outDir, { recursive: true });
    process.stdout.write(`${label}: building ${command.pkg} ...\n`);
    const t0 = Date.now();
    const build = spawnSync(
      "go",
      [
        "build",
        "-trimpath",
        "-buildvcs=false",
        `-tags=${command.tags.join(",")}`,
        `-ldflags=${ldflags(command)}`,
        "-o",
        `${out}.tmp`,
        command.pkg,
      ],
      { cwd: command.dir, stdio: "inherit", env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" } },
    );
    if (build.status !== 0) {
      process.stderr.write(`${label}: go build failed (needs Go and the Go module proxy)\n`);
      process.exit(build.status ?? 1);
    }
    renameSync(`${out}.tmp`, out);
    writeFileSync(stamp, sum);
    process.stdout.write(`${label}: built in ${Math.round((Date.now() - t0) / 1000)} s\n`);
  });
  process.stdout.write(`binaries in ${cacheDir} (${Math.round((Date.now() - started) / 1000)} s)\n`);
}

main();
