/**
 * AWS's catalogs of EC2 instance types and regions, from `@pulumi/aws`'s enums (`ec2.InstanceType`,
 * `Region`), which the provider generates from AWS's own API models; they follow the `@pulumi/aws` version
 * the lockfile pins (7.48.0: 1405 instance types). Zones are not listed there: a zone is its region's name
 * and a letter, checked against the region here and given a subnet slot by its letter.
 */
import { Region } from "@pulumi/aws/types/enums";
import { InstanceType } from "@pulumi/aws/types/enums/ec2";

export const INSTANCE_TYPES: ReadonlySet<string> = new Set(Object.values(InstanceType));
export const REGIONS: ReadonlySet<string> = new Set(Object.values(Region));
