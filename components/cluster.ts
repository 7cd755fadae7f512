/**
 * The program: read the spec (validated before anything is declared), build the components, return the
 * stack outputs. `index.ts` exports this for the Pulumi CLI; `npm run plan` runs it under mocks.
 */
import * as pulumi from "@pulumi/pulumi";
import { lookupCoordinates } from "./awsCoordinates";
import { CiliumAddon } from "./cilium/ciliumAddon";
import { ciliumClusterName } from "./cilium/clusterName";
import { AwsCloudController } from "./cloudController/awsCloudController";
import { NodeTerminationHandler } from "./drain/nodeTerminationHandler";
import { NodeTerminationHandlerQueue } from "./drain/nodeTerminationHandlerQueue";
import { EbsCsiDriver } from "./ebsCsi/ebsCsiDriver";
import { MasterIamRole, NodeIamRole } from "./iam/instanceRole";
import { clusterAddons, deployerApi } from "./k8s/clusterAddons";
import { ApiDns } from "./network/apiDns";
import { ClusterNetwork } from "./network/clusterNetwork";
import { instanceGroups } from "./nodes/instanceGroups";
import { NodeLaunchTemplate } from "./nodes/nodeLaunchTemplate";
import { ClusterSecrets } from "./secrets/clusterSecrets";
import { ClusterAdminRole } from "./adminAccess/adminRole";
import { mappedAdminRoleArn } from "./adminAccess/adminRoleFacts";
import { renderKubeconfig, adminCredentialCommand } from "./adminAccess/kubeconfigRender";
import { API_LISTENER } from "./wellKnownPorts";
import { ControlPlaneState } from "./controlPlane/controlPlaneState";
import { controlPlaneMemberReplaced } from "./controlPlane/refreshWait";
import { clusterCaCertificate } from "./controlPlane/clusterCaCertificate";
import { afterWaits } from "./deployWait";
import { stackAws } from "./stackAws";
import { loadSpec } from "../config/load";
import {
  APPLIED_VERSION_OUTPUT,
  appliedState,
  CA_CERTIFICATE_OUTPUT,
  CONTROL_PLANE_ROLE_OUTPUT,
  VPC_CIDR_OUTPUT,
} from "./appliedState";
import { kubernetesUpgrade, nodesRollAfterControlPlane } from "../config/validation/kubernetesUpgrade";
import { backupBucketArn } from "./controlPlane/backupBucket";

export async function program(): Promise<Record<string, unknown>> {
  // A downgrade, a skipped minor, an etcd move etcd refuses or a new IAM path or VPC CIDR is refused with the
  // config's other errors, before anything is declared.
  const applied = await appliedState();
  const spec = loadSpec(applied);
  const upgrade = kubernetesUpgrade(applied.kubernetesVersion, spec.kubernetesVersion);
  const network = new ClusterNetwork("network", { spec });
  const coordinates = lookupCoordinates(spec.region);
  const apiDns = new ApiDns("api-dns", {
    spec,
    vpcId: network.vpcId,
    loadBalancer: { dnsName: network.apiInternalEndpoint, zoneId: network.apiInternalZoneId },
  });
  const controlPlaneRole = new MasterIamRole("control-plane", { spec, coordinates });
  const nodeRole = new NodeIamRole("nodes", { spec, coordinates });
  const aws = stackAws(pulumi.runtime.allConfig());
  const secrets = new ClusterSecrets("secrets", {
    spec,
    coordinates,
    nodeRoleArn: nodeRole.roleArn,
    controlPlaneRoleArn: controlPlaneRole.roleArn,
    backupBucketArn: coordinates.apply((at) => backupBucketArn(spec.clusterName, at)),
  });
  const adminRole = new ClusterAdminRole("admins", { spec, coordinates });
  const controlPlaneState = new ControlPlaneState("control-plane-state", {
    spec,
    coordinates,
    // Its path is the one the next update holds iam.path to (components/appliedState.ts).
    [CONTROL_PLANE_ROLE_OUTPUT]: controlPlaneRole.roleArn,
    keyArn: secrets.keyArn,
  });

  // Control-plane groups one after another: each waits for the previous group's member wait (its refresh,
  // then, when this machine applies the add-ons, a healthy API), which calls AWS as the stack's provider does.
  // instanceGroups lists them first: when an upgrade brings a kubelet newer than the API servers the cluster
  // runs, the node groups wait for the last of them, so no kubelet is ever newer than its API server.
  const nodesAfterControlPlane = nodesRollAfterControlPlane(upgrade);
  let caCertificate: pulumi.Output<string> | undefined;
  let previousMember: pulumi.Output<pulumi.Resource> | undefined;
  const groups = instanceGroups(spec).map((group) => {
    const controlPlane = group.role === "control-plane";
    const template = new NodeLaunchTemplate(group.name, {
      spec,
      group,
      subnetIds: network.nodeSubnetIds,
      securityGroupId: controlPlane ? network.securityGroupIds.controlPlane : network.securityGroupIds.nodes,
      instanceProfileName: controlPlane ? controlPlaneRole.instanceProfileName : nodeRole.instanceProfileName,
      api: { internal: apiDns.internalName, public: network.apiEndpoint, caParameter: controlPlaneState.clusterCa },
      apiTargetGroupArns: controlPlane ? network.apiTargetGroupArns : [],
      state: controlPlane
        ? {
            initRecord: controlPlaneState.initRecord,
            backupBucket: controlPlaneState.backupBucket,
            encryptionKeys: controlPlaneState.encryptionKeys,
            sharedPki: controlPlaneState.sharedPki,
            adminRoleArn: coordinates.apply((at) => mappedAdminRoleArn(spec.clusterName, at)),
          }
        : undefined,
      // Nodes fetch their secrets at boot and resolve the API's name;
      // a control-plane group waits for the previous group's refresh (one member at a time).
      launchAfter: [
        controlPlane ? controlPlaneRole : nodeRole,
        secrets,
        ...network.egress,
        apiDns,
        ...(controlPlane ? [controlPlaneState] : []),
        ...((controlPlane || nodesAfterControlPlane) && previousMember ? [previousMember] : []),
      ],
    });
    // The first control-plane group's first node makes the cluster's CA: every wait after trusts the API by it.
    if (controlPlane && !caCertificate)
      caCertificate = clusterCaCertificate(controlPlaneState.clusterCa, template, applied.caCertificate, aws);
    const memberReplaced =
      caCertificate && controlPlane
        ? controlPlaneMemberReplaced(template, deployerApi(spec, network.apiEndpoint, caCertificate), aws)
        : undefined;
    if (memberReplaced) previousMember = memberReplaced.apply(() => template);
    return { group, template, memberReplaced };
  });

  const controlPlaneGroups = groups.filter((g) => g.group.role === "control-plane");
  // Set by the first control-plane group: every spec has one (controlPlane.count is at least 1).
  const apiCaCertificate = caCertificate!;
  // The Kubernetes provider's kubeconfig: no credential, the command that makes a token as the admin role.
  const kubeconfig = pulumi
    .all([network.apiEndpoint, apiCaCertificate, adminRole.roleArn])
    .apply(([endpoint, caCertPem, roleArn]) =>
      renderKubeconfig({
        clusterName: spec.clusterName,
        server: `https://${endpoint}:${API_LISTENER}`,
        caCertPem,
        exec: adminCredentialCommand({
          clusterName: spec.clusterName,
          region: spec.region,
          roleArn,
          profile: aws.profile,
        }),
      }),
    );
  const membersReplaced = groups.flatMap((g) => (g.memberReplaced ? [g.memberReplaced] : []));
  const addons = clusterAddons({
    spec,
    kubeconfig,
    controlPlane: controlPlaneGroups.map((g) => g.template),
    controlPlaneGroupNames: controlPlaneGroups.map((g) => g.template.autoScalingGroupName),
    membersReplaced,
  });
  const cilium = new CiliumAddon(
    "cilium",
    { spec, apiEndpoint: apiDns.internalName, delivery: addons.delivery },
    addons.opts,
  );
  new AwsCloudController(
    "aws-cloud-controller",
    { spec, apiEndpoint: apiDns.internalName, delivery: addons.delivery },
    addons.opts,
  );
  if (spec.addons.ebsCsiDriver.enabled)
    new EbsCsiDriver("ebs-csi-driver", { spec, delivery: addons.delivery }, addons.opts);
  // Every group's drain hook holds a terminating instance until the handler has drained its node.
  const drainQueue = new NodeTerminationHandlerQueue("drain-queue", { spec, coordinates });
  new NodeTerminationHandler(
    "node-termination-handler",
    { spec, queueUrl: drainQueue.queueUrl, delivery: addons.delivery },
    addons.opts,
  );

  return {
    clusterName: spec.clusterName,
    vpcId: network.vpcId,
    // What the next update holds network.cidr to (components/appliedState.ts).
    [VPC_CIDR_OUTPUT]: spec.network.cidr,
    subnetIds: network.subnetIds,
    securityGroupIds: network.securityGroupIds,
    apiEndpoint: pulumi.interpolate`https://${network.apiEndpoint}:${API_LISTENER}`,
    // Its path is the one the next update holds iam.path to (components/appliedState.ts).
    [CONTROL_PLANE_ROLE_OUTPUT]: controlPlaneRole.roleArn,
    nodeRoleArn: nodeRole.roleArn,
    // Where the etcd snapshots are, for a restore (docs/operations.md).
    backupBucket: controlPlaneState.backupBucket,
    // A control-plane group's name once its member is replaced: the outputs, and so pulumi up, end after the
    // last group's wait too, which nothing else follows.
    autoScalingGroups: Object.fromEntries(
      groups.map((g) => [
        g.group.name,
        g.memberReplaced
          ? afterWaits(g.template.autoScalingGroupName, [g.memberReplaced])
          : g.template.autoScalingGroupName,
      ]),
    ),
    ciliumConfigChecksum: cilium.configChecksum,
    ciliumClusterName: ciliumClusterName(spec.clusterName),
    // What `npm run kubeconfig` writes into a kubeconfig: no admin credential is an output.
    region: spec.region,
    adminRoleArn: adminRole.roleArn,
    [CA_CERTIFICATE_OUTPUT]: apiCaCertificate,
    // The version the control plane runs once every member is replaced: what the next update compares with
    // (components/appliedState.ts).
    [APPLIED_VERSION_OUTPUT]: afterWaits(spec.kubernetesVersion, membersReplaced),
  };
}
