// validate-cluster expects every DaemonSet and Deployment the program's add-ons put in the cluster, no more:
// its list of add-ons (cli/clusterCheck/expectations.ts) is held to what the program declares, for every example.
import { expect } from "chai";
import { join } from "path";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../components/clusterConfigValidation";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { loadStackConfig, setPath, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { expectations } from "../../cli/clusterCheck/expectations";
import { inputs, planWith } from "../planHelpers";

const WORKLOAD_KINDS = ["kubernetes:apps/v1:DaemonSet", "kubernetes:apps/v1:Deployment"];

describe("the workloads validate-cluster expects", () => {
  for (const example of examples()) {
    it(`${example.name}: are the ones the program declares`, async () => {
      const config = loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file);
      // Applied by the deployer, every object is a resource of the plan (from the control plane, a document).
      setPath(config, "addons.applyFrom", "deployer");
      setPath(config, "api.access[0]", "203.0.113.7/32");
      const { raw, region } = readRawConfig(toRuntimeConfig(config));
      const { spec, errors } = validateConfig(raw, region);
      expect(errors).to.eql([]);
      const plan = await planWith({}, config);
      const declared = plan.resources
        .filter((r) => WORKLOAD_KINDS.includes(r.type))
        .map((r) => `${inputs(r).kind} ${inputs(r).metadata.namespace}/${inputs(r).metadata.name}`);
      const expected = expectations(spec).workloads.map((w) => `${w.kind} ${w.namespace}/${w.name}`);
      expect(expected).to.have.length.greaterThan(0);
      expect(expected.sort()).to.eql(declared.sort());
    });
  }
});
