/**
 * The drain of terminating nodes: every group's drain hook holds a terminating instance until
 * aws-node-termination-handler, fed by its queue, has drained its node.
 */
import type { Feature } from "../feature";
import { NODE_TERMINATION_HANDLER_CHART_DIFFERENCES } from "./nodeTerminationHandlerChartDifferences";
import { NodeTerminationHandler } from "./nodeTerminationHandler";
import { renderNodeTerminationHandlerManifests } from "./nodeTerminationHandlerManifests";
import { NodeTerminationHandlerQueue } from "./nodeTerminationHandlerQueue";
import { nodeTerminationHandler } from "./nodeTerminationHandlerRights";

export const drainFeature: Feature = {
  name: "node-termination-handler",
  rights: [nodeTerminationHandler],
  addon: {
    enabled: () => true,
    render: (spec, { queueUrl }) => renderNodeTerminationHandlerManifests(spec, queueUrl),
    declare: ({ spec, coordinates, delivery, addonOpts, awsOpts }) => {
      const queue = new NodeTerminationHandlerQueue("drain-queue", { spec, coordinates }, awsOpts);
      new NodeTerminationHandler("node-termination-handler", { spec, queueUrl: queue.queueUrl, delivery }, addonOpts);
      return {};
    },
    chartDifferences: NODE_TERMINATION_HANDLER_CHART_DIFFERENCES,
  },
};
