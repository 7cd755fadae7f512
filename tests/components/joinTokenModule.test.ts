// bootstrap/join-token.sh's decisions as tables run through bash itself: when a new join token is due, and
// which tokens are stale. The rotation against the real kubeadm and API server: tests/kubernetes/joinToken.test.ts.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { join } from "path";

const MODULE_DIR = join(__dirname, "../../components/nodes/bootstrap");
const NOW = Date.parse("2026-06-01T00:00:00Z") / 1000;
const at = (hours: number) => new Date((NOW + hours * 3600) * 1000).toISOString().replace(/\.000Z$/, "Z");

/** FUNCTION NOW CURRENT of join-token.sh with "TOKEN EXPIRES" lines (expiry in hours from NOW) on its input. */
function decide(fn: string, current: string, tokens: [string, number][]) {
  const input = tokens.map(([t, hours]) => `${t} ${at(hours)}\n`).join("");
  const r = spawnSync(
    "bash",
    [
      "-c",
      `set -euo pipefail; source ${MODULE_DIR}/lib.sh; source ${MODULE_DIR}/join-token.sh; ${fn} "$@"`,
      "bash",
    ].concat([String(NOW), current]),
    { input, encoding: "utf8" },
  );
  expect(r.status, r.stderr).to.equal(0);
  return r.stdout;
}

const A = "aaaaaa.aaaaaaaaaaaaaaaa";
const B = "bbbbbb.bbbbbbbbbbbbbbbb";
const C = "cccccc.cccccccccccccccc";

describe("bootstrap/join-token.sh", () => {
  it("join_token_due: a new token when the cluster does not know the current one or it expires within a day", () => {
    const table: [string, [string, number][], string][] = [
      [A, [[A, 47]], "no"],
      [A, [[A, 24.5]], "no"],
      [A, [[A, 23.5]], "yes"],
      // Expired: the token cleaner may not have deleted it yet.
      [A, [[A, -1]], "yes"],
      [A, [[B, 47]], "yes"],
      [A, [], "yes"],
      // What Pulumi writes before the first control-plane node has minted one.
      ["none", [[B, 47]], "yes"],
      [
        A,
        [
          [B, 47],
          [A, 30],
        ],
        "no",
      ],
    ];
    for (const [current, tokens, due] of table)
      expect(decide("join_token_due", current, tokens), `${current} ${JSON.stringify(tokens)}`).to.equal(`${due}\n`);
  });

  it("stale_join_tokens: every token but the current one minted more than an hour ago", () => {
    const stale = (current: string, tokens: [string, number][]) =>
      decide("stale_join_tokens", current, tokens).split("\n").filter(Boolean);
    // Tokens live 48 h: expiring within 47 h means minted more than an hour ago.
    expect(
      stale(A, [
        [A, 10],
        [B, 46],
        [C, 47.5],
      ]),
    ).to.deep.equal([B]);
    // kubeadm init's own token (24 h) goes with the first token the node mints.
    expect(
      stale(C, [
        [B, 23.9],
        [C, 48],
      ]),
    ).to.deep.equal([B]);
    expect(stale(A, [[A, 1]])).to.deep.equal([]);
    expect(stale(A, [])).to.deep.equal([]);
  });
});
