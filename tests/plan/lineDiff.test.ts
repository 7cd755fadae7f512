// The user data diff: diff -u's hunks, each change with the lines around it.
import { expect } from "chai";
import { unifiedDiff } from "../../cli/plan/lineDiff";

const lines = (n: number, edit: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => edit[i + 1] ?? `l${i + 1}`).join("\n");

describe("unified diff of user data", () => {
  it("gives each change three lines of context, removed before added, in hunks diff -u numbers", () => {
    expect(unifiedDiff(lines(20), lines(20, { 3: "L3", 18: "L18" }))).to.deep.equal([
      "@@ -1,6 +1,6 @@",
      "  l1",
      "  l2",
      "- l3",
      "+ L3",
      "  l4",
      "  l5",
      "  l6",
      "@@ -15,6 +15,6 @@",
      "  l15",
      "  l16",
      "  l17",
      "- l18",
      "+ L18",
      "  l19",
      "  l20",
    ]);
  });

  it("joins changes whose context meets into one hunk, and counts added and removed lines apart", () => {
    const after = lines(12, { 5: "L5" }).replace("l9\n", "l9\nnew\n");
    expect(unifiedDiff(lines(12), after)).to.deep.equal([
      "@@ -2,11 +2,12 @@",
      "  l2",
      "  l3",
      "  l4",
      "- l5",
      "+ L5",
      "  l6",
      "  l7",
      "  l8",
      "  l9",
      "+ new",
      "  l10",
      "  l11",
      "  l12",
    ]);
  });

  it("is empty for equal texts", () => {
    expect(unifiedDiff(lines(5), lines(5))).to.deep.equal([]);
  });
});
