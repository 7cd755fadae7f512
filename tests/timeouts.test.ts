// The program's timeouts (components/timeouts.ts): the bash literals the table mirrors.
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import { TIMEOUTS } from "../components/timeouts";

const BOOTSTRAP = join(__dirname, "..", "components", "nodes", "bootstrap");

/** Every default the script gives `${NAME:-default}`: the literals bash falls back to. */
function bashDefaults(script: string, name: string): number[] {
  const text = readFileSync(join(BOOTSTRAP, script), "utf8");
  return [...text.matchAll(new RegExp(`\\$\\{${name}:-(\\d+)\\}`, "g"))].map((m) => Number(m[1]));
}

describe("the timeouts table", () => {
  it("mirrors the literals the node's bash reads", () => {
    const mirrored: [string, string, number][] = [
      ["etcd-lifecycle.sh", "ETCD_PEERS_WAIT_SECONDS", TIMEOUTS.bootstrapScripts.etcdPeersWaitSeconds],
      ["etcd-lifecycle.sh", "ETCD_LEAVE_RETRY_SECONDS", TIMEOUTS.bootstrapScripts.etcdLeaveRetrySeconds],
    ];
    for (const [script, name, value] of mirrored) {
      const defaults = bashDefaults(script, name);
      expect(defaults.length, `${script} ${name}`).to.be.greaterThan(0);
      expect(new Set(defaults), `${script} ${name}`).to.deep.equal(new Set([value]));
    }
  });
});
