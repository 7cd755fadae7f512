/** The EBS CSI driver, when `addons.ebsCsiDriver.enabled`: volumes for PersistentVolumeClaims. */
import type { Feature } from "../feature";
import { EBS_CSI_CHART_DIFFERENCES } from "./ebsCsiChartDifferences";
import { EbsCsiDriver } from "./ebsCsiDriver";
import { ebsCsiDriver } from "./ebsCsiDriverRights";
import { renderEbsCsiManifests } from "./ebsCsiManifests";

export const ebsCsiFeature: Feature = {
  name: "ebs-csi-driver",
  rights: [ebsCsiDriver],
  addon: {
    enabled: (spec) => spec.addons.ebsCsiDriver.enabled,
    render: (spec) => renderEbsCsiManifests(spec),
    declare: ({ spec, delivery, addonOpts }) => {
      new EbsCsiDriver("ebs-csi-driver", { spec, delivery }, addonOpts);
      return {};
    },
    chartDifferences: EBS_CSI_CHART_DIFFERENCES,
  },
};
