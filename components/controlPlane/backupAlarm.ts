/**
 * What watches the backups' age: the leader reports each snapshot it uploads as a CloudWatch metric
 * (bootstrap/etcd.sh `etcd_backup`), and this alarm goes off when none came for two backup intervals, or
 * no data at all arrived (a control plane that never snapshots is the failure to see). It has no action:
 * its state shows in CloudWatch, and an SNS topic or other action can be added to it (docs/operations.md).
 */
import { MetricAlarm, MetricAlarmArgs } from "@pulumi/aws/cloudwatch/metricAlarm";
import type * as pulumi from "@pulumi/pulumi";
import type { ClusterSpec } from "../../config/types";
import { clusterTags } from "../tags";
import { SNAPSHOT_METRIC } from "../nodes/controlPlaneNames";

/** The cluster's own metric namespace (bootstrap/etcd.sh builds the same from its facts). */
export const snapshotMetricNamespace = (clusterName: string) => `${SNAPSHOT_METRIC.namespacePrefix}/${clusterName}`;

/** The alarm's inputs for a spec: pure, so a test and the plan see the same. */
export function backupAlarmArgs(spec: ClusterSpec): MetricAlarmArgs {
  const name = `etcd-backups.${spec.clusterName}`;
  return {
    name,
    alarmDescription: `No etcd snapshot of cluster ${spec.clusterName} was uploaded for two backup intervals (docs/operations.md, Backups)`,
    namespace: snapshotMetricNamespace(spec.clusterName),
    metricName: SNAPSHOT_METRIC.name,
    dimensions: { [SNAPSHOT_METRIC.dimension]: spec.clusterName },
    statistic: "Sum",
    period: spec.controlPlane.backupIntervalMinutes * 60,
    evaluationPeriods: 2,
    datapointsToAlarm: 2,
    comparisonOperator: "LessThanThreshold",
    threshold: 1,
    treatMissingData: "breaching",
    tags: clusterTags(spec, name),
  };
}

export function declareBackupAlarm(name: string, spec: ClusterSpec, parent: pulumi.Resource): MetricAlarm {
  return new MetricAlarm(`${name}-backups`, backupAlarmArgs(spec), { parent });
}
