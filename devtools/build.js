// `npm run build`, also run by `npm ci` and before `npm run plan` and `npm test`: compiles the program to
// bin/ (devtools/compile.ts). Plain JavaScript, so that when bin/ already matches the sources, as before most
// plans, it returns at once without loading TypeScript.
/* global require, __dirname, process */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, run by plain Node */
"use strict";
const { spawnSync } = require("child_process");
const { join } = require("path");

const root = join(__dirname, "..");
let fresh = false;
try {
  fresh = require(join(root, "bin", "devtools", "buildStamp.js")).staleBuild(root) === undefined;
} catch {
  // No build yet, or one too broken to check itself: compile.
}
if (!fresh) {
  const compile = spawnSync(
    process.execPath,
    [require.resolve("ts-node/dist/bin"), "--transpile-only", join(__dirname, "compile.ts")],
    { stdio: "inherit" },
  );
  process.exitCode = compile.status ?? 1;
}
