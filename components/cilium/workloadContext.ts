/** What the agent and operator renderers share: images, API endpoint environment, config checksum. */
import type { AgentAdditions } from "./features/ciliumFeatureShape";
import type { PodTraits } from "./lines/releaseLines";

export interface WorkloadContext {
  namespace: string;
  agentImage: string;
  operatorImage: string;
  operatorCommand: string;
  /** `KUBERNETES_SERVICE_HOST`/`PORT`: the API load balancer, reachable before the CNI is up. */
  apiEnv: { name: string; value: string }[];
  configChecksum: string;
  /** ENI mode: the operator runs on the control plane, whose instance role carries the ENI permissions. */
  operatorOnControlPlane: boolean;
  operatorReplicas: number;
  /** How the chart of the version's line shapes the agent's and operator's pods. */
  pods: PodTraits;
  /** What the features that are on add to the agent's pod. */
  agentAdditions: AgentAdditions;
}
