// The backup bucket's lifecycle rules (backupBucket.ts) run through S3's documented lifecycle semantics for a
// versioning-enabled bucket (Amazon S3 User Guide, "Expiring objects" and "Lifecycle configuration
// elements"): Expiration of a current version adds a delete marker over it, which makes the data a noncurrent
// version; NoncurrentVersionExpiration deletes a noncurrent version NoncurrentDays after it became
// noncurrent, except the NewerNoncurrentVersions newest noncurrent versions; only deleted versions free
// storage. A day is counted whole (S3 rounds each action to the next midnight UTC: at most a day later).
import { expect } from "chai";
import { backupLifecycleRules } from "../../components/controlPlane/backupBucket";
import { LATEST_SNAPSHOT_KEY, SNAPSHOT_PREFIX } from "../../components/nodes/controlPlaneNames";

type Rule = ReturnType<typeof backupLifecycleRules>[number] & { expiration?: { days: number } };
interface Version {
  created: number;
  /** When it became noncurrent (replaced by a newer version or covered by a delete marker). */
  noncurrentSince?: number;
  deleted?: number;
}

const DAY = 24 * 60;

/** The data versions of one key written at `uploads` (minutes), with their fate under `rule` by `until`. */
function lifecycle(rule: Rule, uploads: number[], until: number): Version[] {
  const versions: Version[] = uploads.map((created, i) => ({ created, noncurrentSince: uploads[i + 1] }));
  const current = versions.at(-1)!;
  // A current version's expiration: a delete marker at the next midnight after `days`.
  if (rule.expiration) {
    const marker = Math.ceil((current.created + rule.expiration.days * DAY) / DAY) * DAY;
    if (marker <= until) current.noncurrentSince = marker;
  }
  const { noncurrentDays, newerNoncurrentVersions = 0 } = rule.noncurrentVersionExpiration as {
    noncurrentDays: number;
    newerNoncurrentVersions?: number;
  };
  // Day by day, the noncurrent versions old enough, beyond the newest newerNoncurrentVersions, are deleted.
  for (let day = 0; day <= until; day += DAY) {
    const noncurrent = versions.filter((v) => v.noncurrentSince !== undefined && v.noncurrentSince <= day);
    noncurrent.slice(0, Math.max(0, noncurrent.length - newerNoncurrentVersions)).forEach((v) => {
      if (v.deleted === undefined && v.noncurrentSince! + noncurrentDays * DAY <= day) v.deleted = day;
    });
  }
  return versions;
}

const ruleFor = (key: string, days: number) =>
  backupLifecycleRules(days).find((r) => key.startsWith(r.filter.prefix)) as Rule;

describe("etcd backup bucket lifecycle, under S3's rules for a versioned bucket", () => {
  const retention = 30;
  const every15 = (days: number) => Array.from({ length: (days * DAY) / 15 }, (_, i) => i * 15);

  it("a snapshot named by time is gone (its data, not only its current version) about the retention period after its upload", () => {
    const [snapshot] = lifecycle(ruleFor(`${SNAPSHOT_PREFIX}20260101T000000Z.db`, retention), [0], 400 * DAY);
    expect(snapshot.deleted, "its data deleted").to.be.a("number");
    expect(snapshot.deleted! / DAY).to.be.within(retention, retention + 2);
  });

  it("the fixed key, uploaded every 15 minutes: its replaced versions stay a day, not the retention period", () => {
    const versions = lifecycle(ruleFor(LATEST_SNAPSHOT_KEY, retention), every15(90), 90 * DAY);
    const stored = versions.filter((v) => v.deleted === undefined).length;
    // One day of uploads (96) and the next day's, at most: without the day, 30 days of them (2,880).
    expect(stored).to.be.at.most(2 * 96 + 1);
  });

  it("uploads stop for longer than any retention: the newest snapshot and the 3 before it are kept", () => {
    for (const days of [1, retention, 3650]) {
      const versions = lifecycle(ruleFor(LATEST_SNAPSHOT_KEY, days), every15(2), 2 * DAY + 4000 * DAY);
      const kept = versions.filter((v) => v.deleted === undefined);
      expect(
        kept.map((v) => v.created),
        `${days} days`,
      ).to.deep.equal(versions.slice(-4).map((v) => v.created));
    }
  });
});
