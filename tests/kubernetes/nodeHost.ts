/**
 * A test host that looks like a control-plane instance to kubeadm: its own network namespace (a veth with
 * the instance's private IPv4 and a default route, as kubeadm picks its advertise address from the default
 * route), its own hostname, and its own mount namespace in which /etc, /var/lib and /var/log are overlays on scratch
 * directories, so kubeadm writes /etc/kubernetes and /var/lib/etcd as on a node and the machine is untouched.
 * Commands run inside with nsenter; the host ends when `stop` kills its holder process.
 */
import { ChildProcess, spawn, spawnSync, SpawnSyncReturns } from "child_process";
import { mkdirSync, mkdtempSync, openSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { cannotRun } from "../cannotRun";

/**
 * Skips the calling hook unless this process may make network and mount namespaces (root, with unshare from
 * util-linux and ip from iproute2); with `CI=true` it fails instead.
 */
export function requireNamespaces(context: Mocha.Context): void {
  const probe = spawnSync("unshare", ["--net", "--mount", "ip", "link", "show", "lo"], { encoding: "utf8" });
  if (probe.status === 0) return;
  const reason = `no network and mount namespaces (run as root, with util-linux and iproute2): ${probe.stderr || probe.error}`;
  cannotRun(context, reason);
}

export interface HostOptions {
  /** The instance's private IPv4, e.g. 10.0.1.10. */
  ip: string;
  /** Its host name, as Ubuntu on EC2 sets it: the short form (`ip-10-0-1-10`). */
  hostname: string;
  /** Lines added to /etc/hosts: `ADDRESS NAME`. */
  hosts: string[];
}

const SETUP = `set -euo pipefail
ip link set lo up
ip link add eth0 type veth peer name eth1
ip addr add "$IP/24" dev eth0
ip link set eth0 up
ip link set eth1 up
ip route add default via "\${IP%.*}.1" dev eth0
hostname "$HOSTNAME_"
for d in etc var/lib var/log; do
  mkdir -p "$ROOT/$d-upper" "$ROOT/$d-work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=$ROOT/$d-upper,workdir=$ROOT/$d-work" "/$d"
done
printf '%s\\n' "$@" >>/etc/hosts
`;

export class NodeHost {
  private readonly background: ChildProcess[] = [];

  private constructor(
    readonly root: string,
    readonly options: HostOptions,
    private readonly holder: ChildProcess,
  ) {}

  /** A new host; throws with the setup's output when a namespace or mount cannot be made. */
  static create(options: HostOptions): NodeHost {
    const root = mkdtempSync(join(tmpdir(), "node-host-"));
    const holder = spawn("unshare", ["--mount", "--net", "--uts", "--propagation", "private", "sleep", "infinity"], {
      stdio: "ignore",
    });
    const host = new NodeHost(root, options, holder);
    // unshare execs sleep once the namespaces exist: wait until the holder is no longer unshare itself.
    for (let i = 0; i < 100 && !host.inNamespaces(); i++) spawnSync("sleep", ["0.05"]);
    // Never set up in this machine's own namespaces: that would rename it and overlay its /etc.
    if (!host.inNamespaces()) {
      host.stop();
      throw new Error("the test host's namespaces did not appear within 5 seconds");
    }
    const setup = host.run(["bash", "-c", SETUP, "setup", ...options.hosts], {
      env: { ...process.env, IP: options.ip, HOSTNAME_: options.hostname, ROOT: root },
    });
    if (setup.status !== 0) {
      host.stop();
      throw new Error(`the test host could not be set up: ${setup.stderr}`);
    }
    return host;
  }

  private inNamespaces(): boolean {
    const self = spawnSync("readlink", ["/proc/self/ns/net"], { encoding: "utf8" }).stdout;
    const holder = spawnSync("readlink", [`/proc/${this.holder.pid}/ns/net`], { encoding: "utf8" }).stdout;
    return holder !== "" && holder !== self;
  }

  private nsenter = (command: string[]) => [
    "-t",
    String(this.holder.pid),
    "--mount",
    "--net",
    "--uts",
    "--",
    ...command,
  ];

  /** Runs a command inside the host and waits for it. */
  run(command: string[], options: { input?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}) {
    return spawnSync("nsenter", this.nsenter(command), {
      encoding: "utf8",
      input: options.input,
      env: options.env ?? process.env,
      timeout: options.timeout ?? 120_000,
      maxBuffer: 64 * 1024 * 1024,
    }) as SpawnSyncReturns<string>;
  }

  /** Like `run`, but throws with the command's standard error when it fails. */
  must(command: string[], options: { input?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): string {
    const r = this.run(command, options);
    if (r.status !== 0) throw new Error(`${command.join(" ")} failed (${r.status}): ${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  /** Writes a file inside the host, its directories made as needed. */
  writeFile(path: string, content: string, mode = "0644"): void {
    this.must(["bash", "-c", 'mkdir -p "$(dirname "$1")" && cat >"$1" && chmod "$2" "$1"', "write", path, mode], {
      input: content,
    });
  }

  /** Starts a long-running command inside the host, its output in logs/<name>.log. */
  start(name: string, command: string[]): ChildProcess {
    mkdirSync(join(this.root, "logs"), { recursive: true });
    const log = openSync(join(this.root, "logs", `${name}.log`), "a");
    const child = spawn("nsenter", this.nsenter(command), { stdio: ["ignore", log, log] });
    this.background.push(child);
    return child;
  }

  stop(): void {
    for (const child of this.background) child.kill("SIGKILL");
    this.holder.kill("SIGKILL");
  }
}
