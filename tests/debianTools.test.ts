// The fresh-machine contract: a test that runs a Debian tool skips (naming the package) when the tool is
// missing, and fails instead under CI=true.
import { expect } from "chai";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { missingDebianTool, onPath } from "./debianTools";

const DEBIAN_TOOLS = ["shellcheck", "cloud-init", "openssl", "systemd-analyze", "etcd", "etcdctl"];

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "golden" || name === "oracles" ? [] : testFiles(path);
    return name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("Debian tools in tests", () => {
  const bin = mkdtempSync(join(tmpdir(), "bin-"));
  writeFileSync(join(bin, "present-tool"), "#!/bin/sh\n");
  chmodSync(join(bin, "present-tool"), 0o755);
  writeFileSync(join(bin, "not-executable"), "");

  it("finds only executables on PATH", () => {
    expect(onPath("present-tool", bin)).to.equal(true);
    expect(onPath("not-executable", bin)).to.equal(false);
    expect(onPath("present-tool", "")).to.equal(false);
  });

  it("names the Debian package when a tool is missing", () => {
    expect(missingDebianTool("present-tool", "pkg", { PATH: bin })).to.equal(undefined);
    expect(missingDebianTool("shellcheck", "shellcheck", { PATH: bin })).to.equal(
      "shellcheck is not on PATH: install the Debian package shellcheck",
    );
  });

  it("fails instead of skipping when CI=true", () => {
    expect(() => missingDebianTool("openssl", "openssl", { PATH: bin, CI: "true" })).to.throw(
      "install the Debian package openssl (required when CI=true)",
    );
  });

  it("guards every test that runs one of them", () => {
    const unguarded = testFiles(__dirname).filter((file) => {
      const text = readFileSync(file, "utf8");
      const runs = DEBIAN_TOOLS.filter((tool) =>
        new RegExp(`(spawnSync|execFileSync|spawn)\\(\\s*"${tool}"`).test(text),
      );
      return runs.some((tool) => !text.includes(`requireDebianTool(this, "${tool}"`));
    });
    expect(unguarded).to.deep.equal([]);
  });
});
