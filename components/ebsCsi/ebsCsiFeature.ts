/** The EBS CSI driver, when `addons.ebsCsiDriver.enabled`: volumes for PersistentVolumeClaims. */
import type { Feature } from "../feature";
import { EBS_CSI_CHART_DIFFERENCES } from "./ebsCsiChartDifferences";
import { EbsCsiDriver } from "./ebsCsiDriver";
import { ebsCsiDriver } from "./ebsCsiDriverRights";
import { renderEbsCsiManifests } from "./ebsCsiManifests";

export const ebsCsiFeature: Feature = {
  name: "ebs-csi-driver",
  config: {
    under: "addons",
    keys: {
      ebsCsiDriver: {
        kind: "object",
        description: "The Amazon EBS CSI driver: PersistentVolumes as EBS volumes.",
        fields: {
          enabled: {
            kind: "boolean",
            default: true,
            description:
              "Run the driver (its controller on the control plane, a node plugin on every node) with the default " +
              "StorageClass `gp3` (encrypted), and grant the control-plane role the EBS calls it makes, on volumes " +
              "tagged for this cluster only. Turning it off leaves the objects and volumes in the cluster and AWS " +
              "(they are retained) but drops the role's EBS permissions: existing volumes can then no longer be " +
              "attached, detached or deleted.",
          },
        },
      },
    },
  },
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
