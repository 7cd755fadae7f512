/**
 * A real etcd cluster on loopback for tests: etcd and etcdctl at the version kubeadm deploys, built from
 * source (`npm run build:kubernetes`), each member on free ports, its data in a scratch directory. Tests
 * start and stop their own processes.
 */
import { ChildProcess, spawn, spawnSync } from "child_process";
import { mkdtempSync } from "fs";
import { AddressInfo, createServer, Server } from "net";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { binaryPath } from "../kubernetes/binaries";

export const ETCD = binaryPath("etcd");
const ETCDCTL = binaryPath("etcdctl");

export interface EtcdMember {
  name: string;
  peerUrl: string;
  clientUrl: string;
  dataDir: string;
  process?: ChildProcess;
}

/** `count` distinct free loopback ports: every listener stays open until all are chosen. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** A member description on fresh free ports (not started). */
export async function newMember(name: string, dir: string): Promise<EtcdMember> {
  const [peer, client] = await freePorts(2);
  return {
    name,
    peerUrl: `http://127.0.0.1:${peer}`,
    clientUrl: `http://127.0.0.1:${client}`,
    dataDir: join(dir, name),
  };
}

/** etcd's flags for a member; `initialCluster` as etcd's --initial-cluster, `state` new or existing. */
export function etcdArgs(m: EtcdMember, initialCluster: string, state: "new" | "existing"): string[] {
  return [
    `--name=${m.name}`,
    `--data-dir=${m.dataDir}`,
    `--listen-peer-urls=${m.peerUrl}`,
    `--initial-advertise-peer-urls=${m.peerUrl}`,
    `--listen-client-urls=${m.clientUrl}`,
    `--advertise-client-urls=${m.clientUrl}`,
    `--initial-cluster=${initialCluster}`,
    `--initial-cluster-state=${state}`,
    "--initial-cluster-token=cilium-cluster-test",
    "--heartbeat-interval=100",
    "--election-timeout=1000",
    "--log-level=error",
  ];
}

/** Starts etcd for a member (etcdArgs). */
export function startMember(m: EtcdMember, initialCluster: string, state: "new" | "existing"): void {
  m.process = spawn(ETCD, etcdArgs(m, initialCluster, state), { stdio: "ignore" });
}

/** Stops a member's process and waits for it to exit. */
export async function stopMember(m: EtcdMember): Promise<void> {
  const p = m.process;
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    p.once("exit", () => resolve());
    p.kill("SIGTERM");
  });
}

export function etcdctl(endpoints: string, ...args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(ETCDCTL, [`--endpoints=${endpoints}`, "--command-timeout=3s", ...args], {
    encoding: "utf8",
    env: { ...process.env, ETCDCTL_API: "3" },
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** Waits until every member answers a health check. */
export async function waitHealthy(members: EtcdMember[], timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const down = members.filter((m) => etcdctl(m.clientUrl, "endpoint", "health").status !== 0);
    if (down.length === 0) return;
    if (Date.now() > deadline) throw new Error(`etcd members not healthy: ${down.map((m) => m.name).join(", ")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const initialCluster = (members: EtcdMember[]) => members.map((m) => `${m.name}=${m.peerUrl}`).join(",");

/** Starts a cluster of `count` members and waits until it is healthy. */
export async function startCluster(count: number): Promise<{ dir: string; members: EtcdMember[] }> {
  const dir = mkdtempSync(join(tmpdir(), "etcd-"));
  const ports = await freePorts(2 * count);
  const members: EtcdMember[] = Array.from({ length: count }, (_, i) => ({
    name: `m${i + 1}`,
    peerUrl: `http://127.0.0.1:${ports[2 * i]}`,
    clientUrl: `http://127.0.0.1:${ports[2 * i + 1]}`,
    dataDir: join(dir, `m${i + 1}`),
  }));
  for (const m of members) startMember(m, initialCluster(members), "new");
  // A cluster that does not come up is stopped here: the caller never gets hold of its processes.
  await waitHealthy(members).catch(async (e) => {
    await stopAll(members);
    throw e;
  });
  return { dir, members };
}

export async function stopAll(members: EtcdMember[]): Promise<void> {
  await Promise.all(members.map(stopMember));
}

/**
 * The directory of etcdctl and etcdutl, for ETCD_TOOLS_DIR: on a node the control-plane tools take them from
 * the etcd image kubeadm runs; here, the same version built from source.
 */
export const etcdToolsDir = (): string => dirname(ETCDCTL);

/** A port free on each of the addresses. */
export async function freePortOn(addresses: string[]): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once("error", reject);
      s.listen(0, addresses[0], () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const free = await Promise.all(
      addresses.map(
        (a) =>
          new Promise<boolean>((resolve) => {
            const s = createServer();
            s.once("error", () => resolve(false));
            s.listen(port, a, () => s.close(() => resolve(true)));
          }),
      ),
    );
    if (free.every(Boolean)) return port;
  }
}
