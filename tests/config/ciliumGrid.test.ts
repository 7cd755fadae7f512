// The seed's Test_Validate_Cilium grid, with this project's config paths, through the full validator.
import { expect } from "chai";
import { errorKey, formatFieldError } from "../../config/validation/fieldErrors";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, merge, Raw, REGION } from "../fixtures";

interface GridCase {
  cilium: Raw;
  spec?: Raw;
  expected: string[];
}

const grid: GridCase[] = [
  { cilium: {}, expected: [] },
  { cilium: { ipam: "crd" }, expected: [] },
  { cilium: { disableMasquerade: true, ipam: "eni" }, spec: { cloudProvider: "aws" }, expected: [] },
  { cilium: { ipam: "foo" }, expected: ["Unsupported value::networking.cilium.ipam"] },
  {
    cilium: { ipam: "eni" },
    spec: { cloudProvider: "aws" },
    expected: ["Forbidden::networking.cilium.disableMasquerade"],
  },
  {
    cilium: { disableMasquerade: true, ipam: "eni" },
    spec: { cloudProvider: "gce" },
    // The seed expects the ipam error; this program refuses any cloud but AWS before any Cilium rule.
    expected: ["Unsupported value::cloudProvider"],
  },
];

describe("Cilium validation grid (the seed's Test_Validate_Cilium)", () => {
  for (const g of grid) {
    it(`${JSON.stringify(g.cilium)} ${JSON.stringify(g.spec ?? {})} → ${g.expected.join(", ") || "no errors"}`, () => {
      const raw = merge({ ...baseConfig(), networking: { cilium: g.cilium } }, g.spec ?? {});
      const { errors } = validateConfig(raw, REGION);
      expect(errors.map(errorKey).sort()).to.deep.equal([...g.expected].sort());
    });
  }

  it("prints errors in the apimachinery format", () => {
    const raw = { ...baseConfig(), networking: { cilium: { ipam: "foo" } } };
    const { errors } = validateConfig(raw, REGION);
    expect(errors.map(formatFieldError)).to.deep.equal([
      'networking.cilium.ipam: Unsupported value: "foo": supported values: "", "crd", "eni"',
    ]);
  });
});
