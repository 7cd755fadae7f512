/**
 * The cluster, as a Pulumi component other programs declare as they declare pulumi-eks's `eks.Cluster`:
 * `new Cluster(name, { config, applied })`, with the stack's default AWS provider (`aws:region`). Its config
 * is validated, with every error at once, before anything is declared (the component itself included); then
 * it declares the network, the roles, the node groups and the add-ons (features.ts) as its children, and its
 * outputs are properties. index.ts declares one from the stack config and exports its outputs as the stack's.
 */
import * as pulumi from "@pulumi/pulumi";
import { lookupCoordinates } from "./awsCoordinates";
import { ADDONS, STATEMENT_SOURCES } from "./features";
import { ciliumClusterName } from "./cilium/clusterName";
import { featurePolicies, MasterIamRole, NodeIamRole } from "./iam/instanceRole";
import type { RoleKind } from "./iam/statementSource";
import { clusterAddons, deployerApi } from "./k8s/clusterAddons";
import { ApiDns } from "./network/apiDns";
import { ClusterNetwork } from "./network/clusterNetwork";
import { instanceGroups } from "./nodes/instanceGroups";
import { BootstrapBucket } from "./nodes/bootstrapBucket";
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
import { noUpgradePathNotice } from "../config/validation/kubernetesUpgrade";
import { clusterSpec } from "./clusterSpec";
import type { ClusterConfig, ClusterSpec } from "../config/types";
import type { AppliedState } from "../config/appliedState";
import {
  APPLIED_VERSION_OUTPUT,
  CA_CERTIFICATE_OUTPUT,
  CONTROL_PLANE_ROLE_OUTPUT,
  FIXED_SETTINGS_OUTPUT,
  VPC_CIDR_OUTPUT,
} from "./appliedStateOutputs";
import { recordedFixedSettings } from "../config/validation/fixedOnceDeployed";
import { kubernetesUpgrade, nodesRollAfterControlPlane } from "../config/validation/kubernetesUpgrade";
import { backupBucketArn } from "./controlPlane/backupBucket";

export interface ClusterArgs {
  /**
   * The cluster's settings, as a stack's config holds them under the project's namespace (every key of
   * docs/cluster-config.md: `clusterName`, `network`, `networking`, ...); what is left out takes its default.
   */
  config: ClusterConfig;
  /**
   * What this cluster's last successful update applied (config/appliedState.ts); none for a new cluster. A
   * downgrade, a skipped minor, an etcd move etcd refuses or a new IAM path or VPC CIDR is refused against it.
   */
  applied?: AppliedState;
}

/** The cluster's outputs, by the names index.ts exports them under as stack outputs. */
export type ClusterOutputs = ReturnType<typeof declareCluster>;

export class Cluster extends pulumi.ComponentResource {
  readonly clusterName: ClusterOutputs["clusterName"];
  readonly region: ClusterOutputs["region"];
  readonly vpcId: ClusterOutputs["vpcId"];
  readonly vpcCidr: ClusterOutputs["vpcCidr"];
  readonly fixedSettings: ClusterOutputs["fixedSettings"];
  readonly subnetIds: ClusterOutputs["subnetIds"];
  readonly securityGroupIds: ClusterOutputs["securityGroupIds"];
  readonly apiEndpoint: ClusterOutputs["apiEndpoint"];
  readonly apiCaCertificate: ClusterOutputs["apiCaCertificate"];
  readonly controlPlaneRoleArn: ClusterOutputs["controlPlaneRoleArn"];
  readonly nodeRoleArn: ClusterOutputs["nodeRoleArn"];
  readonly adminRoleArn: ClusterOutputs["adminRoleArn"];
  readonly backupBucket: ClusterOutputs["backupBucket"];
  readonly restoreRequest: ClusterOutputs["restoreRequest"];
  readonly autoScalingGroups: ClusterOutputs["autoScalingGroups"];
  readonly ciliumConfigChecksum: ClusterOutputs["ciliumConfigChecksum"];
  readonly ciliumClusterName: ClusterOutputs["ciliumClusterName"];
  /** The version the control plane runs once every member is replaced. */
  readonly kubernetesVersion: ClusterOutputs["kubernetesVersion"];
  /** Every output above, for a program that exports them all (index.ts). */
  readonly outputs: ClusterOutputs;

  constructor(name: string, args: ClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    // The account lookups, the region and pulumi up's own AWS calls are the stack's default provider's: a
    // provider given here would declare the resources elsewhere than those read.
    if (opts?.provider || opts?.providers)
      throw new Error(
        "a Cluster takes no provider: it declares its AWS resources with the stack's default AWS provider " +
          "(aws:region, aws:profile, aws:assumeRoles), whose settings its own AWS calls during pulumi up use too",
      );
    const applied = args.applied ?? {};
    // Throws a ConfigValidationError naming every problem, before the component is registered.
    // The cluster runs where the stack's default AWS provider declares its resources.
    const spec = clusterSpec(args.config, new pulumi.Config("aws").get("region"), applied, pulumi.runtime.allConfig());
    super("cilium-cluster:index:Cluster", name, {}, opts);
    const noUpgradePath = noUpgradePathNotice(applied.kubernetesVersion, spec.kubernetesVersion);
    if (noUpgradePath) void pulumi.log.warn(noUpgradePath, this);
    const outputs = declareCluster(spec, applied, this);
    this.clusterName = outputs.clusterName;
    this.region = outputs.region;
    this.vpcId = outputs.vpcId;
    this.vpcCidr = outputs.vpcCidr;
    this.fixedSettings = outputs.fixedSettings;
    this.subnetIds = outputs.subnetIds;
    this.securityGroupIds = outputs.securityGroupIds;
    this.apiEndpoint = outputs.apiEndpoint;
    this.apiCaCertificate = outputs.apiCaCertificate;
    this.controlPlaneRoleArn = outputs.controlPlaneRoleArn;
    this.nodeRoleArn = outputs.nodeRoleArn;
    this.adminRoleArn = outputs.adminRoleArn;
    this.backupBucket = outputs.backupBucket;
    this.restoreRequest = outputs.restoreRequest;
    this.autoScalingGroups = outputs.autoScalingGroups;
    this.ciliumConfigChecksum = outputs.ciliumConfigChecksum;
    this.ciliumClusterName = outputs.ciliumClusterName;
    this.kubernetesVersion = outputs.kubernetesVersion;
    this.outputs = outputs;
    this.registerOutputs(outputs);
  }
}

/** The cluster's resources for a validated spec, each a child of `parent`. */
function declareCluster(spec: ClusterSpec, applied: AppliedState, parent: Cluster) {
  const opts = { parent };
  const upgrade = kubernetesUpgrade(applied.kubernetesVersion, spec.kubernetesVersion);
  const network = new ClusterNetwork("network", { spec }, opts);
  const coordinates = lookupCoordinates(spec.region);
  const apiDns = new ApiDns(
    "api-dns",
    {
      spec,
      vpcId: network.vpcId,
      loadBalancer: { dnsName: network.apiInternalEndpoint, zoneId: network.apiInternalZoneId },
    },
    opts,
  );
  const policies = (kind: RoleKind) => featurePolicies(STATEMENT_SOURCES, kind, spec, coordinates);
  const controlPlaneRole = new MasterIamRole(
    "control-plane",
    { spec, coordinates, policies: policies("control-plane") },
    opts,
  );
  const nodeRole = new NodeIamRole("nodes", { spec, coordinates, policies: policies("node") }, opts);
  const aws = stackAws(pulumi.runtime.allConfig());
  const secrets = new ClusterSecrets(
    "secrets",
    {
      spec,
      coordinates,
      nodeRoleArn: nodeRole.roleArn,
      controlPlaneRoleArn: controlPlaneRole.roleArn,
      backupBucketArn: coordinates.apply((at) => backupBucketArn(spec.clusterName, at)),
    },
    opts,
  );
  const adminRole = new ClusterAdminRole("admins", { spec, coordinates }, opts);
  const controlPlaneState = new ControlPlaneState(
    "control-plane-state",
    {
      spec,
      coordinates,
      // Its path is the one the next update holds iam.path to (components/appliedStateOutputs.ts).
      [CONTROL_PLANE_ROLE_OUTPUT]: controlPlaneRole.roleArn,
      keyArn: secrets.keyArn,
    },
    opts,
  );

  const bootstrapBucket = new BootstrapBucket("bootstrap", { spec, coordinates }, opts);

  // Control-plane groups one after another: each waits for the previous group's member wait (its refresh,
  // then, when this machine applies the add-ons, a healthy API), which calls AWS as the stack's provider does.
  // instanceGroups lists them first: when an upgrade brings a kubelet newer than the API servers the cluster
  // runs, the node groups wait for the last of them, so no kubelet is ever newer than its API server.
  const nodesAfterControlPlane = nodesRollAfterControlPlane(upgrade);
  let caCertificate: pulumi.Output<string> | undefined;
  let previousMember: pulumi.Output<pulumi.Resource> | undefined;
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
        api: { internal: apiDns.internalName, public: network.apiEndpoint, caParameter: controlPlaneState.clusterCa },
        bootstrap: { bucket: bootstrapBucket.bucketName, ready: bootstrapBucket.ready },
        apiTargetGroupArns: controlPlane ? network.apiTargetGroupArns : [],
        state: controlPlane
          ? {
              initRecord: controlPlaneState.initRecord,
              restoreRequest: controlPlaneState.restoreRequest,
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
      },
      opts,
    );
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
    parent,
  });
  const addonOutputs = Object.assign(
    {},
    ...ADDONS.filter((addon) => addon.enabled(spec)).map((addon) =>
      addon.declare({
        spec,
        apiEndpoint: apiDns.internalName,
        coordinates,
        delivery: addons.delivery,
        addonOpts: addons.opts,
        awsOpts: opts,
      }),
    ),
  ) as Record<string, pulumi.Output<string>>;

  return {
    clusterName: spec.clusterName,
    vpcId: network.vpcId,
    // What the next update holds network.cidr to (components/appliedStateOutputs.ts).
    [VPC_CIDR_OUTPUT]: spec.network.cidr,
    // ... and the other settings fixed once deployed.
    [FIXED_SETTINGS_OUTPUT]: recordedFixedSettings(spec),
    subnetIds: network.subnetIds,
    securityGroupIds: network.securityGroupIds,
    apiEndpoint: pulumi.interpolate`https://${network.apiEndpoint}:${API_LISTENER}`,
    // Its path is the one the next update holds iam.path to (components/appliedStateOutputs.ts).
    [CONTROL_PLANE_ROLE_OUTPUT]: controlPlaneRole.roleArn,
    nodeRoleArn: nodeRole.roleArn,
    // Where the etcd snapshots are, for a restore (docs/operations.md).
    backupBucket: controlPlaneState.backupBucket,
    // Where `npm run restore-snapshot` names the snapshot to restore (cli/restoreSnapshot.ts).
    restoreRequest: controlPlaneState.restoreRequest,
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
    ciliumConfigChecksum: addonOutputs.ciliumConfigChecksum,
    ciliumClusterName: ciliumClusterName(spec.clusterName),
    // What `npm run kubeconfig` writes into a kubeconfig: no admin credential is an output.
    region: spec.region,
    adminRoleArn: adminRole.roleArn,
    [CA_CERTIFICATE_OUTPUT]: apiCaCertificate,
    // The version the control plane runs once every member is replaced: what the next update compares with
    // (components/appliedStateOutputs.ts).
    [APPLIED_VERSION_OUTPUT]: afterWaits(spec.kubernetesVersion, membersReplaced),
  };
}
