/**
 * The program: read the spec (validated before anything is declared), build the components, return the
 * stack outputs. `index.ts` exports this for the Pulumi CLI; `npm run plan` runs it under mocks.
 */
import * as pulumi from "@pulumi/pulumi";
import { lookupCoordinates } from "./components/awsCoordinates";
import { ApiReady } from "./components/cilium/apiReady";
import { CiliumAddon } from "./components/cilium/ciliumAddon";
import { MasterIamRole, NodeIamRole } from "./components/iam/instanceRole";
import { ApiDns } from "./components/network/apiDns";
import { ClusterNetwork } from "./components/network/clusterNetwork";
import { instanceGroups } from "./components/nodes/instanceGroups";
import { NodeLaunchTemplate } from "./components/nodes/nodeLaunchTemplate";
import { ClusterSecrets } from "./components/secrets/clusterSecrets";
import { ControlPlaneState } from "./components/controlPlane/controlPlaneState";
import { ControlPlaneRefreshWait } from "./components/controlPlane/refreshWait";
import { loadSpec } from "./spec/load";

export async function program(): Promise<Record<string, unknown>> {
  const spec = loadSpec();
  const network = new ClusterNetwork("network", { spec });
  const coordinates = lookupCoordinates(spec.region);
  const controlPlaneRole = new MasterIamRole("control-plane", { spec, coordinates });
  const nodeRole = new NodeIamRole("nodes", { spec, coordinates });
  const secrets = new ClusterSecrets("secrets", { spec, apiEndpoint: network.apiEndpoint });
  const controlPlaneState = new ControlPlaneState("control-plane-state", {
    spec,
    coordinates,
    controlPlaneRoleArn: controlPlaneRole.roleArn,
  });
  const apiDns = new ApiDns("api-dns", {
    spec,
    vpcId: network.vpcId,
    loadBalancer: { dnsName: network.apiInternalEndpoint, zoneId: network.apiInternalZoneId },
  });

  // Control-plane groups one after another: each waits for the previous group's refresh and a healthy API.
  let previousMember: pulumi.Resource | undefined;
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
        api: { internal: apiDns.internalName, public: network.apiEndpoint },
        apiTargetGroupArns: controlPlane ? network.apiTargetGroupArns : [],
        state: controlPlane
          ? { initRecord: controlPlaneState.initRecord, backupBucket: controlPlaneState.backupBucket }
          : undefined,
      },
      // Nodes fetch their secrets (and control-plane nodes their tools) at boot: the parameters must exist
      // before the first instance starts.
      {
        dependsOn: controlPlane
          ? [secrets, apiDns, controlPlaneState, ...(previousMember ? [previousMember] : [])]
          : [secrets, apiDns],
      },
    );
    if (controlPlane) {
      previousMember = new ControlPlaneRefreshWait(
        `${group.name}-healthy`,
        {
          region: spec.region,
          groupName: template.autoScalingGroupName,
          templateVersion: template.latestVersion,
          readyUrl: pulumi.interpolate`https://${network.apiEndpoint}:443/readyz`,
          caCertPem: secrets.caCertPem,
          timeoutSeconds: 1800,
        },
        { dependsOn: [template] },
      );
    }
    return { group, template };
  });

  const apiReady = new ApiReady(
    "api-ready",
    {
      url: pulumi.interpolate`https://${network.apiEndpoint}:443/readyz`,
      caCertPem: secrets.caCertPem,
      timeoutSeconds: 1800,
    },
    { dependsOn: groups.filter((g) => g.group.role === "control-plane").map((g) => g.template) },
  );
  const cilium = new CiliumAddon("cilium", {
    spec,
    kubeconfig: secrets.kubeconfig,
    apiEndpoint: apiDns.internalName,
    dependsOn: [apiReady],
  });

  return {
    clusterName: spec.clusterName,
    vpcId: network.vpcId,
    subnetIds: network.subnetIds,
    securityGroupIds: network.securityGroupIds,
    apiEndpoint: pulumi.interpolate`https://${network.apiEndpoint}:443`,
    controlPlaneRoleArn: controlPlaneRole.roleArn,
    nodeRoleArn: nodeRole.roleArn,
    autoScalingGroups: Object.fromEntries(groups.map((g) => [g.group.name, g.template.autoScalingGroupName])),
    ciliumConfigChecksum: cilium.configChecksum,
    kubeconfig: secrets.kubeconfig,
  };
}
