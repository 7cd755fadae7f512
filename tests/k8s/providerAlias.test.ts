// Moving the Kubernetes provider out of CiliumAddon must not replace anything on an existing stack: every
// Kubernetes object keeps the URN it had (recorded in urnsBeforeK8sLayer.json from the goldens before the
// move), and the one provider answers to its former URN through an alias.
import { expect } from "chai";
import { join } from "path";
import { examples, PROJECT_DIR } from "../../plan/examples";
import { mockId } from "../../plan/mocks";
import { runPlan } from "../../plan/run";
import { loadStackConfig } from "../../plan/stackConfig";
import urnsBefore from "./urnsBeforeK8sLayer.json";

const PROVIDER_TYPE = "pulumi:providers:kubernetes";

describe("the cluster's Kubernetes provider", () => {
  // Stacks that existed before the move; an example added since (internal-api) has no former URNs to keep.
  const existing = examples().filter((e) => e.name in urnsBefore);
  it("checks every stack recorded before the move", () => {
    expect(existing.map((e) => e.name)).to.have.members(Object.keys(urnsBefore));
  });
  for (const example of existing) {
    it(`${example.name}: one provider, aliased to its former URN; every object keeps its URN`, async () => {
      const recorded = (urnsBefore as Record<string, string[]>)[example.name];
      expect(recorded, `no recorded URNs for ${example.name}`).to.be.an("array");
      const plan = await runPlan(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file), example.name);
      const providers = plan.resources.filter((r) => r.type === PROVIDER_TYPE);
      expect(providers.map((p) => p.urn)).to.have.length(1);
      const [provider] = providers;
      const formerProvider = recorded.filter((urn) => urn.includes(`$${PROVIDER_TYPE}::`));
      expect(formerProvider).to.have.length(1);
      expect([provider.urn, ...(provider.aliases ?? [])]).to.include(formerProvider[0]);

      const objects = plan.resources.filter((r) => r.type.startsWith("kubernetes:"));
      expect(objects.map((o) => o.urn)).to.have.members(recorded.filter((urn) => urn !== formerProvider[0]));
      const providerRef = `${provider.urn}::${mockId(provider.type, provider.name)}`;
      for (const o of objects) expect(o.provider, o.name).to.equal(providerRef);
    });
  }
});
