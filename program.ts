/**
 * The program: read the spec (validated before anything is declared), build the components, return the
 * stack outputs. `index.ts` exports this for the Pulumi CLI; `npm run plan` runs it under mocks.
 */
import * as pulumi from "@pulumi/pulumi";
import { lookupCoordinates } from "./components/awsCoordinates";
import { CiliumAddon } from "./components/cilium/ciliumAddon";
import { ciliumClusterName } from "./components/cilium/clusterName";
import { MasterIamRole, NodeIamRole } from "./components/iam/instanceRole";
import { clusterAddons } from "./components/k8s/clusterAddons";
import { ApiDns } from "./components/network/apiDns";
import { ClusterNetwork } from "./components/network/clusterNetwork";
import { instanceGroups } from "./components/nodes/instanceGroups";
import { NodeLaunchTemplate } from "./components/nodes/nodeLaunchTemplate";
import { ClusterSecrets } from "./components/secrets/clusterSecrets";
import { API_LISTENER } from "./components/wellKnownPorts";
import { ControlPlaneState } from "./components/controlPlane/controlPlaneState";
import { ControlPlaneRefreshWait } from "./components/controlPlane/refreshWait";
import { loadSpec } from "./spec/load";

export async function program(): Promise<Record<string, unknown>> {
  const spec = loadSpec();
  const network = new ClusterNetwork("network", { spec });
  const coordinates = lookupCoordinates(spec.region);
  const apiDns = new ApiDns("api-dns", {
    spec,
    vpcId: network.vpcId,
    loadBalancer: { dnsName: network.apiInternalEndpoint, zoneId: network.apiInternalZoneId },
  });
  const controlPlaneRole = new MasterIamRole("control-plane", { spec, coordinates });
  const nodeRole = new NodeIamRole("nodes", { spec, coordinates });
  const secrets = new ClusterSecrets("secrets", { spec, apiEndpoint: network.apiEndpoint });
  const controlPlaneState = new ControlPlaneState("control-plane-state", {
    spec,
    coordinates,
    controlPlaneRoleArn: controlPlaneRole.roleArn,
  });

  // Control-plane groups one after another: each waits for the previous group's refresh and a healthy API.
  let previousMember: pulumi.Resource | undefined;
  const groups = instanceGroups(spec).map((group) => {
    const controlPlane = group.role === "control-plane";
    const template = new NodeLaunchTemplate(group.name, {
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
      // Nodes fetch their secrets at boot and resolve the API's name;
      // a control-plane group waits for the previous group's refresh (one member at a time).
      launchAfter: [
        controlPlane ? controlPlaneRole : nodeRole,
        secrets,
        ...network.egress,
        apiDns,
        ...(controlPlane ? [controlPlaneState, ...(previousMember ? [previousMember] : [])] : []),
      ],
    });
    if (controlPlane) {
      previousMember = new ControlPlaneRefreshWait(
        `${group.name}-healthy`,
        {
          region: spec.region,
          groupName: template.autoScalingGroupName,
          templateVersion: template.latestVersion,
          // With addons.applyFrom controlPlane pulumi up needs only the AWS API: the refresh alone is waited for.
          readyUrl:
            spec.addons.applyFrom === "controlPlane"
              ? ""
              : pulumi.interpolate`https://${network.apiEndpoint}:${API_LISTENER}/readyz`,
          caCertPem: secrets.caCertPem,
          timeoutSeconds: 1800,
          silentLimitSeconds: 600,
        },
        { dependsOn: [template] },
      );
    }
    return { group, template };
  });

  const controlPlaneGroups = groups.filter((g) => g.group.role === "control-plane");
  const addons = clusterAddons({
    spec,
    apiEndpoint: network.apiEndpoint,
    caCertPem: secrets.caCertPem,
    kubeconfig: secrets.kubeconfig,
    // The groups, not their refresh waits: ApiReady's fast failures (an API this machine cannot reach) come
    // at once, not after a wait.
    controlPlane: controlPlaneGroups.map((g) => g.template),
    controlPlaneGroupNames: controlPlaneGroups.map((g) => g.template.autoScalingGroupName),
  });
  const cilium = new CiliumAddon(
    "cilium",
    { spec, apiEndpoint: apiDns.internalName, delivery: addons.delivery },
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
