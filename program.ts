/**
 * The program: read the spec (validated before anything is declared), build the components, return the
 * stack outputs. `index.ts` exports this for the Pulumi CLI; `npm run plan` runs it under mocks.
 */
import { lookupCoordinates } from "./components/awsCoordinates";
import { MasterIamRole, NodeIamRole } from "./components/iam/instanceRole";
import { ClusterNetwork } from "./components/network/clusterNetwork";
import { loadSpec } from "./spec/load";

export async function program(): Promise<Record<string, unknown>> {
  const spec = loadSpec();
  const network = new ClusterNetwork("network", { spec });
  const coordinates = lookupCoordinates(spec.region);
  const controlPlaneRole = new MasterIamRole("control-plane", { spec, coordinates });
  const nodeRole = new NodeIamRole("nodes", { spec, coordinates });
  return {
    clusterName: spec.clusterName,
    vpcId: network.vpcId,
    apiEndpoint: network.apiEndpoint,
    controlPlaneRoleArn: controlPlaneRole.roleArn,
    nodeRoleArn: nodeRole.roleArn,
  };
}
