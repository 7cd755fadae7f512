/** The AWS cloud controller manager: node initialisation and Services of type LoadBalancer, always on. */
import type { Feature } from "../feature";
import { CLOUD_CONTROLLER_CHART_DIFFERENCES } from "./cloudControllerChartDifferences";
import { AwsCloudController } from "./awsCloudController";
import { renderCloudControllerManifests } from "./cloudControllerManifests";
import { cloudController } from "./cloudControllerRights";

export const cloudControllerFeature: Feature = {
  name: "aws-cloud-controller",
  rights: [cloudController],
  addon: {
    enabled: () => true,
    render: (spec, { apiEndpoint }) => renderCloudControllerManifests(spec, apiEndpoint),
    declare: ({ spec, apiEndpoint, delivery, addonOpts }) => {
      new AwsCloudController("aws-cloud-controller", { spec, apiEndpoint, delivery }, addonOpts);
      return {};
    },
    chartDifferences: CLOUD_CONTROLLER_CHART_DIFFERENCES,
  },
};
