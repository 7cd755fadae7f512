// The etcd volume's fstab line as systemd reads it on later boots: systemd's own fstab generator turns it
// into a mount unit the kubelet requires and starts after, so the etcd static pod never starts on the root
// disk (a fresh one-member cluster) because the volume was mounted late or not at all.
import { expect } from "chai";
import { spawnSync } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";

const GENERATOR = ["/usr/lib/systemd/system-generators", "/lib/systemd/system-generators"]
  .map((d) => join(d, "systemd-fstab-generator"))
  .find((p) => existsSync(p));
const MODULE = join(__dirname, "../../components/nodes/bootstrap/etcd-volume.sh");

/** The units systemd-fstab-generator writes for FSTAB: the mount unit's text and the kubelet's requires. */
function generate(fstab: string) {
  const dir = mkdtempSync(join(tmpdir(), "fstab-generator-"));
  for (const d of ["normal", "early", "late"]) mkdirSync(join(dir, d));
  writeFileSync(join(dir, "fstab"), fstab);
  const r = spawnSync(
    GENERATOR!,
    ["normal", "early", "late"].map((d) => join(dir, d)),
    {
      encoding: "utf8",
      env: { ...process.env, SYSTEMD_FSTAB: join(dir, "fstab"), SYSTEMD_PROC_CMDLINE: "" },
    },
  );
  expect(r.status, r.stderr).to.equal(0);
  return {
    mount: readFileSync(join(dir, "normal/var-lib-etcd.mount"), "utf8"),
    kubeletRequires: existsSync(join(dir, "normal/kubelet.service.requires/var-lib-etcd.mount")),
  };
}

describe("the etcd volume's fstab entry, through systemd-fstab-generator", function () {
  before(function () {
    if (GENERATOR) return;
    if (process.env.CI === "true") throw new Error("systemd-fstab-generator missing (Debian package systemd)");
    console.warn("  skipped: systemd-fstab-generator missing (Debian package systemd)");
    this.skip();
  });

  it("makes the kubelet require the mount and start after it", () => {
    const r = spawnSync("bash", ["-c", `source "$1"; etcd_fstab_entry /var/lib/etcd`, "-", MODULE], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).to.equal(0);
    const units = generate(r.stdout);
    expect(units.kubeletRequires, "kubelet.service.requires/var-lib-etcd.mount").to.equal(true);
    expect(units.mount).to.match(/^Before=kubelet\.service$/m);
    expect(units.mount).to.match(/^Where=\/var\/lib\/etcd$/m);
  });

  it("nofail alone leaves the kubelet free to start without it (the entry this replaces)", () => {
    const units = generate("LABEL=etcd /var/lib/etcd ext4 defaults,nofail 0 2\n");
    expect(units.kubeletRequires).to.equal(false);
    expect(units.mount).not.to.match(/kubelet/);
  });
});
