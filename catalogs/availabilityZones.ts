/**
 * The availability zones of each region, as the letters after the region's name. Zone names are mapped to
 * physical zones per account (in the oldest regions, for accounts created before November 2025), so a letter
 * here says that some account may see a zone of that name, not which physical zone it is (the AZ ID, e.g.
 * `use1-az4`, says that). Where a region gives some accounts only a subset of its letters (us-west-1,
 * ap-northeast-1), every letter any account sees is recorded.
 *
 * Recorded from AWS's documentation (AWS Global Infrastructure, "AWS Availability Zones",
 * https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html, which
 * lists the AZ IDs of each region) without access to an AWS account. Regions AWS documents no zones of
 * publicly (the isolated `-iso` partitions), and regions whose zones could not be confirmed, are not
 * recorded. A zone missing here is let through by listing it in `network.uncatalogedZones`.
 */

/** Region → the letters of its zones. */
export const ZONE_LETTERS_BY_REGION: Readonly<Record<string, string>> = {
  "us-east-1": "abcdef",
  "us-east-2": "abc",
  "us-west-1": "abc",
  "us-west-2": "abcd",
  "ca-central-1": "abd",
  "ca-west-1": "abc",
  "mx-central-1": "abc",
  "us-gov-east-1": "abc",
  "us-gov-west-1": "abc",
  "sa-east-1": "abc",
  "eu-west-1": "abc",
  "eu-west-2": "abc",
  "eu-west-3": "abc",
  "eu-central-1": "abc",
  "eu-central-2": "abc",
  "eu-north-1": "abc",
  "eu-south-1": "abc",
  "eu-south-2": "abc",
  "il-central-1": "abc",
  "me-central-1": "abc",
  "me-south-1": "abc",
  "af-south-1": "abc",
  "ap-east-1": "abc",
  "ap-east-2": "abc",
  "ap-south-1": "abc",
  "ap-south-2": "abc",
  "ap-northeast-1": "abcd",
  "ap-northeast-2": "abcd",
  "ap-northeast-3": "abc",
  "ap-southeast-1": "abc",
  "ap-southeast-2": "abc",
  "ap-southeast-3": "abc",
  "ap-southeast-4": "abc",
  "ap-southeast-5": "abc",
  "ap-southeast-6": "abc",
  "ap-southeast-7": "abc",
  "cn-north-1": "abd",
  "cn-northwest-1": "abc",
};

/** The recorded zones of a region (none when the region is not recorded). */
export function recordedZones(region: string): string[] {
  return [...(ZONE_LETTERS_BY_REGION[region] ?? "")].map((letter) => `${region}${letter}`);
}
