/** aws-node-termination-handler's reviewed differences from its chart. */
import { IntendedDifference, ROLE_CREDENTIALS_ON_HOST_NETWORK } from "../k8s/chartDifference";

const HANDLER = "Deployment/aws-node-termination-handler spec.template";

export const NODE_TERMINATION_HANDLER_CHART_DIFFERENCES: readonly IntendedDifference[] = [
  {
    path: `${HANDLER}.spec.hostNetwork`,
    reason: `${ROLE_CREDENTIALS_ON_HOST_NETWORK} kOps runs the handler in queue mode on the host network of the control plane too.`,
  },
  {
    path: `${HANDLER}.spec.dnsPolicy`,
    reason: `${ROLE_CREDENTIALS_ON_HOST_NETWORK} On the host network it resolves as the host does.`,
  },
];
