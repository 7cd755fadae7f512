/** Cilium, the CNI: always on; in ENI mode its operator's EC2 calls on the control plane's role. */
import type { Feature } from "../feature";
import { INTENDED_DIFFERENCES } from "./chartDifferences";
import { CiliumAddon } from "./ciliumAddon";
import { ciliumEni } from "./ciliumEniRights";
import { renderCiliumManifests } from "./ciliumManifests";
import { CILIUM_KEYS } from "./ciliumKeys";
import { validateCilium } from "./ciliumRules";
import { validateExtraConfig } from "./extraConfigRules";

export const ciliumFeature: Feature = {
  name: "cilium",
  // kOps's Cilium rules, and what extraConfig may set.
  config: { under: "networking.cilium", keys: CILIUM_KEYS, rules: [validateCilium, validateExtraConfig] },
  rights: [ciliumEni],
  addon: {
    enabled: () => true,
    render: (spec, { apiEndpoint }) => renderCiliumManifests(spec, apiEndpoint),
    declare: ({ spec, apiEndpoint, delivery, addonOpts }) => ({
      ciliumConfigChecksum: new CiliumAddon("cilium", { spec, apiEndpoint, delivery }, addonOpts).configChecksum,
    }),
    chartDifferences: INTENDED_DIFFERENCES,
  },
};
