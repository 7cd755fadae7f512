// The managed-option table is honest: for every Cilium option it lists, changing the config key it names
// changes that option in the rendered cilium-config. A feature's options are checked by turning the
// feature on and off (its cases, components/cilium/features/).
import { expect } from "chai";
import { renderCiliumConfig } from "../../components/cilium/configMap";
import { CILIUM_FEATURES } from "../../components/cilium/features/ciliumFeatures";
import { managedCiliumKeys } from "../../components/cilium/configMap";

const MANAGED_CILIUM_KEYS = managedCiliumKeys();
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, merge, Raw, REGION } from "../fixtures";

const crd = (cilium: Raw) => ({ networking: { cilium: { ipam: "crd", disableMasquerade: false, ...cilium } } });

const ipamSwitch: [Raw, Raw] = [{}, crd({})];

/** A feature's options: its first case, and the same with the feature turned off. */
const featureVariations = CILIUM_FEATURES.flatMap((feature) => {
  const on = Object.values(feature.cases.on)[0];
  return Object.keys(feature.managedKeys).map((key): [string, [Raw, Raw]] => [key, [on, merge(on, feature.cases.off)]]);
});

/**
 * Per option the program renders outside the features, two valid configs that differ in the config key the
 * table names (the base config is ENI mode). Native routing needs ENI IPAM, so `routing-mode` changes with
 * `tunnel` and `ipam` together.
 */
const VARIATIONS: Record<string, [Raw, Raw]> = {
  ...Object.fromEntries(featureVariations),
  ipam: ipamSwitch,
  "enable-endpoint-routes": ipamSwitch,
  "auto-create-cilium-node-resource": ipamSwitch,
  "eni-tags": [{}, { cloudLabels: { team: "sre" } }],
  "routing-mode": [{ networking: { cilium: { tunnel: "disabled" } } }, crd({ tunnel: "vxlan" })],
  "tunnel-protocol": [crd({ tunnel: "vxlan" }), crd({ tunnel: "geneve" })],
  // Masquerade may be off only in ENI mode (ciliumRules.ts): the base is.
  "enable-ipv4-masquerade": [crd({}), {}],
  "kube-proxy-replacement": [{}, { networking: { cilium: { enableNodePort: true } }, kubeProxy: { enabled: false } }],
  "cluster-name": [{}, { clusterName: "other.k8s.local" }],
};

function rendered(edit: Raw): Record<string, string> {
  const { spec, errors } = validateConfig(merge(baseConfig(), edit), REGION);
  expect(errors).to.deep.equal([]);
  return renderCiliumConfig(spec);
}

describe("options extraConfig must not override", () => {
  for (const [option, configKey] of Object.entries(MANAGED_CILIUM_KEYS)) {
    it(`${option} follows ${configKey}`, () => {
      const [a, b] = VARIATIONS[option];
      expect(rendered(a)[option]).not.to.equal(rendered(b)[option]);
    });
  }
});
