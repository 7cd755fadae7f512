/**
 * One instance of the emulated EC2 as a real node: the box image's root file system under an overlay, booted
 * by systemd-nspawn (real systemd, cloud-init, containerd, kubelet) on the box's bridge at the instance's
 * private address, its user data exactly the bytes EC2 would hand it, through cloud-init's NoCloud seed, and
 * its meta-data naming it as EC2 does (cloud-init sets the short host name from `local-hostname`, as on
 * Ubuntu). What stands in for the sandbox alone is written here and in the image, never in the user data:
 * the interface's address (EC2's DHCP), /etc/hosts for the names that answer from the box, the pod network
 * (Cilium's agent cannot run here: docs/development.md), and a cgroup per node in every host hierarchy.
 */
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "fs";
import { spawn, ChildProcess } from "child_process";
import { join } from "path";
import { BRIDGE } from "./network";
import { run, runSync, until } from "./run";
import { BOOTSTRAP_SERVICE } from "../../components/nodes/systemdUnits";

export interface Instance {
  id: string;
  privateIp: string;
  privateDnsName: string;
  instanceType: string;
  zone: string;
  vpcId: string;
  subnetId: string;
  mac: string;
  subnetCidr: string;
  /** The user data as EC2 holds it (base64 of the launch template's). */
  userData: Buffer;
}

export interface NodeOptions {
  namespace: string;
  rootfs: string;
  images: string;
  workDir: string;
  router: string;
  /** The VPC's DNS server (AmazonProvidedDNS). */
  dns: string;
  /** Name → address lines for /etc/hosts (AWS endpoints and pkgs.k8s.io at the router, the API at its NLB). */
  hosts: Record<string, string>;
  podCidr: string;
  cgroupParent: string;
}

const CGROUP_ROOT = "/sys/fs/cgroup";

/** The host's cgroup hierarchies (each a mount: cgroup v1 controllers, systemd's, the unified one). */
export function hierarchies(): string[] {
  return readdirSync(CGROUP_ROOT).filter((h) => statSync(join(CGROUP_ROOT, h)).isDirectory());
}

/**
 * Removes a cgroup and every cgroup below it, deepest first (a cgroup goes only once empty: what is left in
 * it, a killed node's processes leaving a moment after its init, is killed by process id every 0.2 s until
 * it is empty, up to 10 s).
 */
function removeCgroup(path: string): void {
  if (!existsSync(path)) return;
  for (const entry of readdirSync(path)) {
    const child = join(path, entry);
    if (statSync(child).isDirectory()) removeCgroup(child);
  }
  const procs = () => readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean);
  const deadline = Date.now() + 10_000;
  while (procs().length && Date.now() < deadline) {
    for (const pid of procs()) runSync("kill", ["-KILL", pid], { allowFailure: true });
    runSync("sleep", ["0.2"], { allowFailure: true });
  }
  runSync("rmdir", [path], { allowFailure: true });
}

/** Every frozen cgroup below PATH in the freezer hierarchy, thawed. */
function thaw(path: string): void {
  if (!existsSync(path)) return;
  const state = join(path, "freezer.state");
  if (existsSync(state) && readFileSync(state, "utf8").trim() !== "THAWED") writeFileSync(state, "THAWED");
  for (const entry of readdirSync(path)) {
    const child = join(path, entry);
    if (statSync(child).isDirectory()) thaw(child);
  }
}

/**
 * The box's cgroups below RELATIVE, in every hierarchy, what is left in them killed by process id. A node
 * killed while runc set a container up leaves that container's cgroup frozen, its `runc init` asleep there
 * for good: thawed first, since a frozen process takes no signal.
 */
export function removeCgroups(relative: string): void {
  thaw(join(CGROUP_ROOT, "freezer", relative));
  for (const h of hierarchies()) removeCgroup(join(CGROUP_ROOT, h, relative));
}

export class Node {
  readonly name: string;
  readonly root: string;
  readonly bootedAt = Date.now();
  private process?: ChildProcess;
  private exited?: Promise<void>;

  constructor(
    readonly instance: Instance,
    private readonly options: NodeOptions,
  ) {
    this.name = `box-${instance.id}`;
    this.root = join(options.workDir, "root");
  }

  private get cgroup(): string {
    return `${this.options.cgroupParent}/${this.name}`;
  }

  boot(): void {
    const { workDir, rootfs } = this.options;
    for (const d of ["upper", "work", "root", "containerd"]) mkdirSync(join(workDir, d), { recursive: true });
    runSync("mount", [
      "-t",
      "overlay",
      "overlay",
      "-o",
      `lowerdir=${rootfs},upperdir=${join(workDir, "upper")},workdir=${join(workDir, "work")}`,
      this.root,
    ]);
    this.writeSandboxFiles();
    this.createCgroups();
    const log = createWriteStream(join(workDir, "console.log"));
    // nsenter, not `ip netns exec`: that mounts a sysfs of its own, without the host's cgroup trees nspawn needs.
    const nspawn = [
      `--net=/var/run/netns/${this.options.namespace}`,
      "systemd-nspawn",
      "--quiet",
      "--register=no",
      "--keep-unit",
      "--boot",
      `--directory=${this.root}`,
      `--machine=${this.name}`,
      "--capability=all",
      "--system-call-filter=@keyring @swap bpf perf_event_open",
      "--bind=/dev/kmsg",
      `--bind=${join(workDir, "containerd")}:/var/lib/containerd`,
      `--bind-ro=${this.options.images}:/box/images`,
      `--network-bridge=${BRIDGE}`,
      "--console=pipe",
    ];
    const procs = hierarchies().map((h) => join(CGROUP_ROOT, h, this.cgroup, "cgroup.procs"));
    // The launcher joins the node's cgroups, then becomes nspawn: the node and everything in it stay there.
    const script = `for f in "$@"; do echo $$ > "$f"; done; exec nsenter ${nspawn.map((a) => `'${a}'`).join(" ")}`;
    this.process = spawn("sh", ["-c", script, "sh", ...procs], {
      env: { ...process.env, SYSTEMD_NSPAWN_API_VFS_WRITABLE: "1", SYSTEMD_NSPAWN_TMPFS_TMP: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.process.stdout?.pipe(log);
    this.process.stderr?.pipe(log);
    this.exited = new Promise((resolve) => this.process?.on("exit", () => resolve()));
  }

  private writeSandboxFiles(): void {
    const { instance, options } = this;
    const put = (path: string, text: string | Buffer, mode = 0o644) => {
      mkdirSync(join(this.root, path, ".."), { recursive: true });
      writeFileSync(join(this.root, path), text, { mode });
    };
    // What EC2 hands cloud-init: the user data's bytes (gzip: cloud-init inflates it) and the instance's names.
    put("/var/lib/cloud/seed/nocloud/user-data", Buffer.from(instance.userData.toString("utf8"), "base64"));
    put(
      "/var/lib/cloud/seed/nocloud/meta-data",
      `instance-id: ${instance.id}\nlocal-hostname: ${instance.privateDnsName}\n`,
    );
    put("/etc/machine-id", `${instance.id.replace(/^i-/, "").padEnd(32, "0").slice(0, 32)}\n`);
    const prefix = instance.subnetCidr.split("/")[1];
    // EC2's DHCP: the primary interface has the ENI's MAC and address, the VPC router as its gateway. Set
    // before networkd and cloud-init start (networkd leaves an interface no .network file names alone).
    put(
      "/etc/systemd/system/box-network.service",
      [
        "[Unit]",
        "Description=box: the primary interface, as EC2's DHCP configures it",
        "DefaultDependencies=no",
        "Before=network-pre.target cloud-init-local.service",
        "Wants=network-pre.target",
        "[Service]",
        "Type=oneshot",
        "RemainAfterExit=yes",
        `ExecStart=/usr/sbin/ip link set host0 address ${instance.mac}`,
        `ExecStart=/usr/sbin/ip address add ${instance.privateIp}/${prefix} dev host0`,
        "ExecStart=/usr/sbin/ip link set host0 up",
        `ExecStart=/usr/sbin/ip route add default via ${options.router}`,
        "[Install]",
        "WantedBy=sysinit.target",
        "",
      ].join("\n"),
    );
    mkdirSync(join(this.root, "etc/systemd/system/sysinit.target.wants"), { recursive: true });
    symlinkSync(
      "/etc/systemd/system/box-network.service",
      join(this.root, "etc/systemd/system/sysinit.target.wants/box-network.service"),
    );
    const hosts = Object.entries(options.hosts).map(([name, address]) => `${address} ${name}`);
    put("/etc/resolv.conf", `nameserver ${options.dns}\n`);
    put("/etc/hosts", ["127.0.0.1 localhost", "::1 localhost", ...hosts, ""].join("\n"));
    // The pod network: the standard bridge plugin on this node's own range, routed between nodes by the box
    // (Cilium's agent would write its own configuration here).
    put(
      "/etc/cni/net.d/10-box-bridge.conflist",
      JSON.stringify(
        {
          cniVersion: "1.0.0",
          name: "box",
          plugins: [
            {
              type: "bridge",
              bridge: "cni0",
              isGateway: true,
              ipMasq: false,
              ipam: { type: "host-local", ranges: [[{ subnet: options.podCidr }]], routes: [{ dst: "0.0.0.0/0" }] },
            },
            { type: "portmap", capabilities: { portMappings: true } },
          ],
        },
        null,
        2,
      ),
    );
  }

  private createCgroups(): void {
    for (const h of hierarchies()) {
      const parent = join(CGROUP_ROOT, h, this.options.cgroupParent);
      const own = join(CGROUP_ROOT, h, this.cgroup);
      for (const dir of [parent, own]) {
        if (existsSync(dir)) continue;
        mkdirSync(dir);
        if (h === "cpuset") {
          // A cpuset cgroup takes tasks only once it has CPUs and memory nodes: its parent's.
          for (const file of ["cpuset.cpus", "cpuset.mems"]) {
            const value = runSync("cat", [join(dir, "..", file)]).trim();
            writeFileSync(join(dir, file), value);
          }
        }
      }
    }
  }

  /** A command inside the node (its namespaces, entered through its init's process id). */
  async exec(command: string, timeoutMs = 60_000): Promise<string> {
    const leader = this.leaderPid();
    const { stdout } = await run(
      "nsenter",
      ["-t", String(leader), "-m", "-u", "-i", "-n", "-p", "--", "/bin/bash", "-c", command],
      { timeoutMs },
    );
    return stdout;
  }

  /**
   * The bootstrap service's outcome once it has finished (a oneshot that stays active once exited): its
   * result, and how often systemd started it again. While it still runs, systemd reports success and 0 too.
   */
  async bootstrapOutcome(timeoutMs = 180_000): Promise<{ result: string; restarts: number }> {
    return until(
      `${this.instance.privateDnsName}: its bootstrap finished`,
      async () => {
        const shown = await this.exec(
          `systemctl show -p ActiveState -p SubState -p Result -p NRestarts ${BOOTSTRAP_SERVICE}`,
        );
        const p = Object.fromEntries(
          shown
            .trim()
            .split("\n")
            .map((l) => l.split("=", 2)),
        );
        const finished = (p.ActiveState === "active" && p.SubState === "exited") || p.ActiveState === "failed";
        return finished ? { result: p.Result, restarts: Number(p.NRestarts) } : undefined;
      },
      timeoutMs,
    );
  }

  /** Seconds from the node's systemd starting to its bootstrap's end (both on the kernel's monotonic clock). */
  async bootstrapSeconds(): Promise<number> {
    const shown = await this.exec(
      `systemctl show -p UserspaceTimestampMonotonic; systemctl show -p ExecMainExitTimestampMonotonic ${BOOTSTRAP_SERVICE}`,
    );
    const p = Object.fromEntries(
      shown
        .trim()
        .split("\n")
        .map((l) => l.split("=", 2)),
    );
    return Math.round((Number(p.ExecMainExitTimestampMonotonic) - Number(p.UserspaceTimestampMonotonic)) / 1e6);
  }

  /** The node's init: the one process of the node's cgroup whose parent is outside it (nspawn). */
  leaderPid(): number {
    const procs = runSync("cat", [join(CGROUP_ROOT, "pids", this.cgroup, "cgroup.procs")])
      .split("\n")
      .filter(Boolean)
      .map(Number);
    for (const pid of procs) {
      const status = runSync("cat", [`/proc/${pid}/status`], { allowFailure: true });
      if (/^NSpid:\s+\d+\s+1$/m.test(status)) return pid;
    }
    throw new Error(`node ${this.name}: no init process found`);
  }

  /**
   * Powers the node off (nspawn turns SIGTERM into the container's shutdown), as EC2 shuts an instance down,
   * killed if it lingers; or, GRACEFUL false (the box's own teardown, its scenarios over), killed at once.
   */
  async stop(graceful = true): Promise<void> {
    const child = this.process;
    if (child && child.exitCode === null && child.pid) {
      if (graceful) child.kill("SIGTERM");
      const timeout = new Promise((r) => setTimeout(r, graceful ? 30_000 : 0, "timeout"));
      if ((await Promise.race([this.exited, timeout])) === "timeout") {
        // The node's init first: killing it ends every process of the node's PID namespace.
        try {
          process.kill(this.leaderPid(), "SIGKILL");
        } catch {
          // already gone
        }
        child.kill("SIGKILL");
        await this.exited;
      }
    }
    runSync("umount", [this.root], { allowFailure: true });
    removeCgroups(this.cgroup);
  }
}
