/**
 * The program: read the spec (validated before anything is declared), build the components, return the
 * stack outputs. `index.ts` exports this for the Pulumi CLI; `npm run plan` runs it under mocks.
 */
import * as pulumi from "@pulumi/pulumi";
import { lookupCoordinates } from "./components/awsCoordinates";
import { CiliumAddon, formerProviderUrn } from "./components/cilium/ciliumAddon";
import { ciliumClusterName } from "./components/cilium/clusterName";
import { MasterIamRole, NodeIamRole } from "./components/iam/instanceRole";
import { clusterAddons } from "./components/k8s/clusterAddons";
import { ClusterNetwork } from "./components/network/clusterNetwork";
import { instanceGroups } from "./components/nodes/instanceGroups";
import { NodeLaunchTemplate } from "./components/nodes/nodeLaunchTemplate";
import { ClusterSecrets } from "./components/secrets/clusterSecrets";
import { API_LISTENER } from "./components/wellKnownPorts";
import { loadSpec } from "./spec/load";

export async function program(): Promise<Record<string, unknown>> {
  const spec = loadSpec();
  const network = new ClusterNetwork("network", { spec });
  const coordinates = lookupCoordinates(spec.region);
  const controlPlaneRole = new MasterIamRole("control-plane", { spec, coordinates });
  const nodeRole = new NodeIamRole("nodes", { spec, coordinates });
  const secrets = new ClusterSecrets("secrets", { spec, apiEndpoint: network.apiEndpoint });

  const groups = instanceGroups(spec).map((group) => {
    const controlPlane = group.role === "control-plane";
    const template = new NodeLaunchTemplate(
      group.name,
      {
        spec,
        group,
        subnetIds: network.nodeSubnetIds,
        securityGroupId: controlPlane ? network.securityGroupIds.controlPlane : network.securityGroupIds.nodes,
        instanceProfileName: controlPlane ? controlPlaneRole.instanceProfileName : nodeRole.instanceProfileName,
        api: { internal: network.apiInternalEndpoint, public: network.apiEndpoint },
        apiTargetGroupArns: controlPlane ? network.apiTargetGroupArns : [],
        launchAfter: [controlPlane ? controlPlaneRole : nodeRole, secrets, ...network.egress],
      },
      // Nodes fetch their secrets at boot: the parameters must exist before the first instance starts.
      { dependsOn: [secrets] },
    );
    return { group, template };
  });

  const controlPlaneGroups = groups.filter((g) => g.group.role === "control-plane");
  const addons = clusterAddons({
    spec,
    apiEndpoint: network.apiEndpoint,
    caCertPem: secrets.caCertPem,
    kubeconfig: secrets.kubeconfig,
    controlPlane: controlPlaneGroups.map((g) => g.template),
    controlPlaneGroupNames: controlPlaneGroups.map((g) => g.template.autoScalingGroupName),
    providerAliases: [formerProviderUrn("cilium")],
  });
  const cilium = new CiliumAddon(
    "cilium",
    { spec, apiEndpoint: network.apiInternalEndpoint, delivery: addons.delivery },
    addons.opts,
  );

  return {
    clusterName: spec.clusterName,
    vpcId: network.vpcId,
    subnetIds: network.subnetIds,
    securityGroupIds: network.securityGroupIds,
    apiEndpoint: pulumi.interpolate`https://${network.apiEndpoint}:${API_LISTENER}`,
    controlPlaneRoleArn: controlPlaneRole.roleArn,
    nodeRoleArn: nodeRole.roleArn,
    autoScalingGroups: Object.fromEntries(groups.map((g) => [g.group.name, g.template.autoScalingGroupName])),
    ciliumConfigChecksum: cilium.configChecksum,
    ciliumClusterName: ciliumClusterName(spec.clusterName),
    kubeconfig: secrets.kubeconfig,
  };
}
