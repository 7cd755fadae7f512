/**
 * NodeLaunchTemplate: an instance group's launch template (image, type, instance profile, security
 * groups, IMDSv2, encrypted root volume, tags, bootstrap user data) and its Auto Scaling group, which
 * pins the template's latest version and rolls its instances by instance refresh when it changes.
 */
import { Group as AutoscalingGroup } from "@pulumi/aws/autoscaling/group";
import { LaunchTemplate } from "@pulumi/aws/ec2/launchTemplate";
import * as pulumi from "@pulumi/pulumi";
import { awsName } from "../naming";
import { clusterTags } from "../tags";
import { INSTANCE_GROUP_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import { TIMEOUTS } from "../timeouts";
import { pinnedImage } from "./ami";
import { bootstrapConfig, NodeSpec } from "./bootstrapConfig";
import type { InstanceGroup } from "./instanceGroups";
import { declareLifecycleHooks, groupLifecycleHooks } from "./lifecycleHooks";
import { BucketObjectv2 } from "@pulumi/aws/s3/bucketObjectv2";
import { bootstrapObjectKey, sha256Hex } from "./bootstrapBundle";
import { renderLoader, renderUserData } from "./userData";
import { encodeUserData } from "./userDataEncoding";

export interface NodeLaunchTemplateArgs {
  spec: NodeSpec;
  group: InstanceGroup;
  /** Subnet per zone of the cluster, in the order of `spec.network.availabilityZones`. */
  subnetIds: pulumi.Input<string>[];
  securityGroupId: pulumi.Input<string>;
  instanceProfileName: pulumi.Input<string>;
  /** The internal and user-facing API endpoints, and the parameter of the CA certificate nodes trust them by. */
  api: { internal: pulumi.Input<string>; public: pulumi.Input<string>; caParameter: pulumi.Input<string> };
  /** The names of the control plane's state (ControlPlaneState) and its admin role, for control-plane groups. */
  state?: {
    initRecord: pulumi.Input<string>;
    restoreRequest: pulumi.Input<string>;
    backupBucket: pulumi.Input<string>;
    encryptionKeys: pulumi.Input<string>;
    sharedPki: pulumi.Input<string>;
    adminRoleArn: pulumi.Input<string>;
  };
  /** The bootstrap bucket (bootstrapBucket.ts), where the group's installer goes, once its settings are in place. */
  bootstrap: { bucket: pulumi.Input<string>; ready: pulumi.Input<pulumi.Resource[]> };
  /** The API load balancers' target groups, for control-plane groups. */
  apiTargetGroupArns: pulumi.Input<string>[];
  /**
   * What must exist before the group launches an instance: the instance role's policy, the secrets the
   * bootstrap reads and the subnets' way out, so the first boot never races IAM propagation or egress. An
   * output stands for the previous control-plane group once its member wait has ended (components/cluster.ts).
   */
  launchAfter: pulumi.Input<pulumi.Resource>[];
}

/** Launch template names: `[A-Za-z0-9().-/_]`, at most 128 characters. */
const templateName = (group: string, cluster: string) => awsName(`${group}.${cluster}`, 128, /[^A-Za-z0-9().\-/_]/g);

export class NodeLaunchTemplate extends pulumi.ComponentResource {
  readonly launchTemplateId: pulumi.Output<string>;
  readonly latestVersion: pulumi.Output<number>;
  readonly autoScalingGroupName: pulumi.Output<string>;
  /** The group's name once the group and its lifecycle hooks are in place: what a wait on its instances follows. */
  readonly groupInPlace: pulumi.Output<string>;

  constructor(name: string, args: NodeLaunchTemplateArgs, opts?: pulumi.ComponentResourceOptions) {
    super("cilium-cluster:nodes:NodeLaunchTemplate", name, {}, opts);
    const { spec, group } = args;
    const parent = { parent: this };
    const physical = templateName(group.name, spec.clusterName);
    const tags = clusterTags(spec, physical, { [INSTANCE_GROUP_TAG]: group.name, [ROLE_TAGS[group.role]]: "1" });
    // The group's installer in the bootstrap bucket, under its digest; user data is the loader that fetches it.
    const installer = pulumi
      .output({ api: args.api, state: args.state })
      .apply(({ api, state }) => renderUserData(bootstrapConfig(spec, group, api, state)));
    const script = new BucketObjectv2(
      `${name}-bootstrap`,
      {
        bucket: args.bootstrap.bucket,
        key: installer.apply((text) => bootstrapObjectKey(group.role, text)),
        content: installer,
        contentType: "text/x-shellscript",
        // The cluster's own tags, not its cloudLabels: S3 takes at most 10 tags on an object.
        tags: clusterTags({ clusterName: spec.clusterName, cloudLabels: {} }, physical),
      },
      { ...parent, dependsOn: args.bootstrap.ready },
    );
    const userData = pulumi
      .all([installer, args.bootstrap.bucket, script.key])
      .apply(([text, bucket, key]) =>
        encodeUserData(
          renderLoader({ instanceGroup: group.name, region: spec.region, bucket, key, sha256: sha256Hex(text) }),
        ),
      );

    const template = new LaunchTemplate(
      `${name}-template`,
      {
        name: physical,
        description: `Instance group ${group.name} of cluster ${spec.clusterName}`,
        imageId: pinnedImage(name, spec, group, this),
        instanceType: group.instanceType,
        iamInstanceProfile: { name: args.instanceProfileName },
        vpcSecurityGroupIds: [args.securityGroupId],
        metadataOptions: {
          httpEndpoint: "enabled",
          httpTokens: "required",
          // One hop on the control plane always: a pod there must never reach the control-plane role.
          httpPutResponseHopLimit: group.role === "control-plane" ? 1 : spec.instanceMetadata.hopLimit,
          httpProtocolIpv6: "disabled",
          instanceMetadataTags: "disabled",
        },
        blockDeviceMappings: [
          {
            deviceName: "/dev/sda1",
            ebs: {
              volumeSize: group.rootVolumeSize,
              volumeType: "gp3",
              encrypted: "true",
              deleteOnTermination: "true",
            },
          },
        ],
        // Network interfaces carry the cluster tag too: the Cilium operator's ENI permissions key on it.
        tagSpecifications: ["instance", "volume", "network-interface"].map((resourceType) => ({ resourceType, tags })),
        userData,
        updateDefaultVersion: true,
        tags,
      },
      parent,
    );

    const zones = spec.network.availabilityZones;
    const subnets = group.zones.map((z) => args.subnetIds[zones.indexOf(z)]);
    const controlPlane = group.role === "control-plane";
    const asg = new AutoscalingGroup(
      `${name}-group`,
      {
        name: physical,
        minSize: group.minSize,
        maxSize: group.maxSize,
        desiredCapacity: group.desiredCapacity,
        vpcZoneIdentifiers: subnets,
        // Pinned to the template's newest version (never $Latest, which would not trigger a refresh).
        launchTemplate: { id: template.id, version: pulumi.interpolate`${template.latestVersion}` },
        targetGroupArns: args.apiTargetGroupArns,
        // EC2 health checks for every group (kOps's choice): the API target group's /readyz includes etcd,
        // so an etcd stall would mark every control-plane node unhealthy at once. A node whose bootstrap
        // has not joined by its deadline is abandoned by the launch hook instead.
        healthCheckType: "EC2",
        // A new group's first instances launch with its hooks; later changes go through the LifecycleHook
        // resources below, which also put them on groups created before them (lifecycleHooks.ts).
        initialLifecycleHooks: groupLifecycleHooks(group),
        // Instances are InService only once joined (minutes, a worker after the control plane): pulumi up
        // does not wait for them here (its default of 10 minutes could fail a good first boot); a control-plane
        // group's member wait does (components/controlPlane/refreshWait.ts).
        waitForCapacityTimeout: String(TIMEOUTS.nodes.groupCapacityWaitSeconds),
        healthCheckGracePeriod: TIMEOUTS.nodes.healthCheckGracePeriodSeconds[group.role],
        // Auto Scaling's own replacements (an unhealthy or stopped instance, a rebalancing) keep the same
        // bounds as a refresh: on the control plane, the new member joins before the old leaves.
        instanceMaintenancePolicy: {
          minHealthyPercentage: group.minHealthyPercentage,
          maxHealthyPercentage: group.maxHealthyPercentage,
        },
        instanceRefresh: {
          strategy: "Rolling",
          preferences: {
            minHealthyPercentage: group.minHealthyPercentage,
            // Control-plane groups (one node each) launch the replacement first (instanceGroups.ts).
            maxHealthyPercentage: group.maxHealthyPercentage,
            // An instance is InService only once it has joined (the launch hook): a broken change stops
            // at the first instances it replaces, which never get there.
            instanceWarmup: String(TIMEOUTS.nodes.instanceWarmupSeconds),
          },
        },
        tags: Object.entries(tags).map(([key, value]) => ({ key, value, propagateAtLaunch: false })),
      },
      {
        parent: this,
        dependsOn: args.launchAfter,
        // initialLifecycleHooks is ForceNew and never read back: a change there must not replace the group.
        ignoreChanges: ["initialLifecycleHooks", ...(controlPlane ? [] : ["desiredCapacity"])],
      },
    );
    const hooks = declareLifecycleHooks(name, group, asg, this);

    this.launchTemplateId = template.id;
    this.latestVersion = template.latestVersion;
    this.autoScalingGroupName = asg.name;
    this.groupInPlace = pulumi.all([asg.name, ...hooks.map((h) => h.id)]).apply(([groupName]) => groupName);
    this.registerOutputs({ launchTemplateId: this.launchTemplateId, autoScalingGroupName: this.autoScalingGroupName });
  }
}
