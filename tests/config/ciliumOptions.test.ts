// The record of Cilium's option names is true to its sources: every key the chart at hand writes to
// cilium-config is recorded for its line, and so is every key the program renders itself.
import { expect } from "chai";
import { join } from "path";
import { ciliumOptions } from "../../catalogs/ciliumOptions";
import { CILIUM_LINES, newestRelease } from "../../catalogs/ciliumVersions";
import { CILIUM_OPTION_SOURCES } from "../../catalogs/recorded/ciliumOptionsRecord";
import { renderCiliumConfig } from "../../components/cilium/configMap";
import { managedCiliumKeys } from "../../components/cilium/configMap";

const MANAGED_CILIUM_KEYS = managedCiliumKeys();
import { PROJECT_DIR } from "../../cli/plan/examples";
import { chartConfigKeys } from "../../devtools/catalogSources/ciliumOptionsSource";
import { specWith } from "../fixtures";

describe("the recorded Cilium options", () => {
  for (const line of CILIUM_LINES) {
    const source = CILIUM_OPTION_SOURCES[line.line];

    it(`${line.line}: hold every cilium-config key of ${source.chart}`, () => {
      const keys = chartConfigKeys(join(PROJECT_DIR, source.chart));
      expect(keys.length, "the chart's keys are found").to.be.greaterThan(300);
      expect(keys.filter((key) => !ciliumOptions(line.line).includes(key))).to.deep.equal([]);
    });

    it(`${line.line}: hold every key the program renders and every key it manages`, () => {
      const version = newestRelease(line).version;
      const kubernetesVersion = `1.${line.kubernetes.newest}.0`;
      const rendered = Object.keys(
        renderCiliumConfig(specWith({ kubernetesVersion, networking: { cilium: { version } } })),
      );
      expect(rendered.filter((key) => !ciliumOptions(line.line).includes(key))).to.deep.equal([]);
      // A managed key is one some shipped line reads.
      const readBySomeLine = (key: string) => CILIUM_LINES.some((l) => ciliumOptions(l.line).includes(key));
      expect(Object.keys(MANAGED_CILIUM_KEYS).filter((key) => !readBySomeLine(key))).to.deep.equal([]);
    });
  }

  it("read the chart's data block only, not its metadata", () => {
    const keys = chartConfigKeys(join(PROJECT_DIR, CILIUM_OPTION_SOURCES["1.19"].chart));
    expect(keys).to.include.members(["enable-bpf-masquerade", "routing-mode", "debug"]);
    expect(keys).not.to.include.members(["name", "namespace"]);
  });
});
