/**
 * Every temporary file of a test run in one directory, removed when the process ends: tests make their
 * directories with `mkdtemp(tmpdir())` and start etcd, shells and Helm there, and a real etcd's write-ahead
 * log alone takes 64 MB a member. Loaded by mocha (`.mocharc.json` require) in every worker, before any test;
 * child processes inherit TMPDIR.
 */
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";

const root = mkdtempSync(join(tmpdir(), "cilium-cluster-tests-"));
process.env.TMPDIR = root;
process.on("exit", () => rmSync(root, { recursive: true, force: true }));
