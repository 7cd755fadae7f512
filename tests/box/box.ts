/**
 * A cluster in a box: an example's plan (`npm run plan -- --out`) made real on this machine. The AWS
 * emulator creates what the plan declares; Auto Scaling's instances boot as systemd-nspawn nodes from their
 * unchanged user data; once the API answers, the plan's Kubernetes objects are applied as `pulumi up` would
 * apply them, and those whose images the box has run for real (the AWS cloud controller manager, Cilium's
 * operator). `stop` removes every process, mount, cgroup, namespace and file the box made, pass or fail.
 */
import { missingEmulatorPackages } from "../emulatorPackages";
import { execFile } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from "fs";
import { tmpdir } from "os";
import { CACHE_ROOT } from "../kubernetes/binaries";
import { dirname, join } from "path";
import { parseAllDocuments, parseDocument } from "yaml";
import { Emulator } from "./emulator";
import { addPodRoute, BoxNetwork, createNetwork, deleteNetwork } from "./network";
import { Node, removeCgroups } from "./node";
import { run, runSync, until } from "./run";

const ROOT = join(__dirname, "..", "..");
/** Where the box image is built and kept between runs (tests/box/image/build.sh). */
export const BOX_CACHE = join(CACHE_ROOT, "box");
export const BOX_IMAGE_STAMPS = ["rootfs", "tls", "apt", "images"].map((s) => join(BOX_CACHE, `${s}.stamp`));
/** Why the box cannot run on this machine, or undefined. */
export function whyTheBoxCannotRun(): string | undefined {
  if (process.getuid?.() !== 0) return "the box needs root (network namespaces, mounts, systemd-nspawn)";
  if (!existsSync("/usr/bin/systemd-nspawn")) return "systemd-nspawn is missing (Debian: systemd-container)";
  if (!BOX_IMAGE_STAMPS.every(existsSync)) return `the box image is not built: npm run build:box (into ${BOX_CACHE})`;
  const packages = missingEmulatorPackages();
  if (packages) return packages;
  // The nodes' file systems are directories of this machine's disk (free space as statfs counts it, against
  // every block): below the kubelet's default hard eviction threshold (imagefs.available < 15%) every node is
  // tainted with disk-pressure and no add-on schedules; just above it, what the box writes can cross it.
  const disk = statfsSync(tmpdir());
  const free = (100 * disk.bavail) / disk.blocks;
  if (free < MIN_FREE_DISK_PERCENT)
    return `the disk of ${tmpdir()} has ${free.toFixed(0)}% free, under ${MIN_FREE_DISK_PERCENT}%: the box's kubelets would taint every node with disk-pressure (their imagefs.available < 15% eviction)`;
  return undefined;
}

/** The kubelet's default hard eviction threshold for its image file system. */
const MIN_FREE_DISK_PERCENT = 15;

const AWS_ENDPOINTS = readFileSync(join(__dirname, "image", "aws-endpoints"), "utf8")
  .trim()
  .split(/\s+/);

const CILIUM_CONFIG = "configmap-kube-system-cilium-config.yaml";

/**
 * cilium-config as applied in the box: Cilium's operator restarts every kube-dns pod no Cilium agent
 * manages (unmanaged-pod-watcher-interval, operator/unmanagedpods/), and the box has no agent (its pods are
 * on the bridge stand-in), so CoreDNS would be restarted every 15 s. The one key the box changes.
 */
function withoutUnmanagedPodRestarts(text: string): string {
  const document = parseDocument(text);
  document.setIn(["data", "unmanaged-pod-watcher-interval"], "0");
  return document.toString();
}

export interface BoxOptions {
  /** A stack file (e.g. `Pulumi.dev.yaml`, `examples/Pulumi.eni.yaml`), planned with SETS applied. */
  stackFile: string;
  sets: string[];
}

interface AsgInstance {
  InstanceId: string;
  AutoScalingGroupName: string;
  LifecycleState: string;
}

interface Ec2Instance {
  InstanceId: string;
  PrivateIpAddress: string;
  PrivateDnsName: string;
  InstanceType: string;
  SubnetId: string;
  VpcId: string;
  State: { Name: string };
  NetworkInterfaces: { MacAddress: string }[];
  Placement: { AvailabilityZone: string };
  Tags?: { Key: string; Value: string }[];
}

export class Box {
  readonly nodes = new Map<string, Node>();
  /** Seconds from each node's boot to its Node being Ready, by instance id. */
  readonly readyAfter = new Map<string, number>();
  readonly dir: string;
  readonly plan: string;
  readonly clusterName: string;
  readonly apiName: string;
  private network?: BoxNetwork;
  private emulator?: Emulator;
  private reconciling?: NodeJS.Timeout;
  private reconcile?: Promise<void>;
  private podRanges = 0;
  private readonly namespace: string;
  private readonly subnets = new Map<string, string>();
  private forgetSignals = () => {};

  private constructor(readonly options: BoxOptions) {
    // Kept (BOX_KEEP=1) beside the test run's own temporary directory, which goes when the run ends (tempRoot.ts).
    const keep = process.env.BOX_KEEP === "1";
    this.dir = mkdtempSync(join(keep ? dirname(tmpdir()) : tmpdir(), "cilium-cluster-box-"));
    if (keep) process.stdout.write(`      BOX_KEEP=1: the box's directory is ${this.dir}\n`);
    this.namespace = `ccbox${process.pid}`;
    this.plan = join(this.dir, "plan");
    runSync(process.execPath, [
      join(ROOT, "bin", "cli", "plan.js"),
      "--config-file",
      join(ROOT, options.stackFile),
      ...options.sets.flatMap((s) => ["--set", s]),
      "--out",
      this.plan,
    ]);
    const config = readFileSync(join(this.plan, "kubeadm", readdirSync(join(this.plan, "kubeadm"))[0]), "utf8");
    this.apiName = /apiServerEndpoint: ([^:\s]+)|controlPlaneEndpoint: ([^:\s]+)/.exec(config)!.slice(1).find(Boolean)!;
    this.clusterName = this.apiName.replace(/^api\.internal\./, "");
  }

  static async start(options: BoxOptions): Promise<Box> {
    const box = new Box(options);
    // Interrupted (Ctrl-C, CI's timeout), the box still removes what it made before the process ends.
    const interrupted = (signal: NodeJS.Signals) => {
      void box.stop().finally(() => process.kill(process.pid, signal));
    };
    process.once("SIGINT", interrupted);
    process.once("SIGTERM", interrupted);
    box.forgetSignals = () => {
      process.removeListener("SIGINT", interrupted);
      process.removeListener("SIGTERM", interrupted);
    };
    try {
      const subnets = box.planned("aws:ec2/subnet:Subnet").map((r) => String(r.inputs.cidrBlock));
      const vpc = String(box.planned("aws:ec2/vpc:Vpc")[0].inputs.cidrBlock);
      box.network = createNetwork(box.namespace, vpc, subnets);
      box.emulator = await Emulator.start(box.network, box.plan, BOX_CACHE, join(box.dir, "emulator.log"));
      const described = await box.emulator.aws<{ Subnets: { SubnetId: string; CidrBlock: string }[] }>([
        "ec2",
        "describe-subnets",
      ]);
      for (const s of described.Subnets) box.subnets.set(s.SubnetId, s.CidrBlock);
      box.startAutoScaling();
      return box;
    } catch (error) {
      await box.stop();
      throw error;
    }
  }

  /** The plan's resources of TYPE. */
  planned(type: string): { name: string; inputs: Record<string, unknown> }[] {
    const resources = JSON.parse(readFileSync(join(this.plan, "resources.json"), "utf8")) as {
      type: string;
      name: string;
      inputs: Record<string, unknown>;
    }[];
    return resources.filter((r) => r.type === type);
  }

  get aws(): Emulator {
    if (!this.emulator) throw new Error("the box has no emulator");
    return this.emulator;
  }

  /** Auto Scaling's side of EC2: an instance of a group gets a node; a terminated one loses it. */
  private startAutoScaling(): void {
    const tick = async () => {
      const { AutoScalingInstances } = await this.aws.aws<{ AutoScalingInstances: AsgInstance[] }>([
        "autoscaling",
        "describe-auto-scaling-instances",
      ]);
      const { Reservations } = await this.aws.aws<{ Reservations: { Instances: Ec2Instance[] }[] }>([
        "ec2",
        "describe-instances",
      ]);
      const running = new Map(
        Reservations.flatMap((r) => r.Instances)
          .filter((i) => i.State.Name === "running")
          .map((i) => [i.InstanceId, i]),
      );
      for (const { InstanceId } of AutoScalingInstances) {
        const instance = running.get(InstanceId);
        if (instance && !this.nodes.has(InstanceId)) await this.boot(instance);
      }
      for (const [id, node] of this.nodes) {
        if (!running.has(id)) {
          this.nodes.delete(id);
          await node.stop();
        }
      }
    };
    const loop = () => {
      this.reconcile = tick()
        .catch((error: unknown) => {
          process.stderr.write(`box: auto scaling: ${String(error)}\n`);
        })
        .finally(() => {
          if (this.reconciling) this.reconciling = setTimeout(loop, 2000);
        });
    };
    this.reconciling = setTimeout(loop, 0);
  }

  private async boot(instance: Ec2Instance): Promise<void> {
    const template = instance.Tags?.find((t) => t.Key === "aws:ec2launchtemplate:id")?.Value;
    const { LaunchTemplateVersions } = await this.aws.aws<{
      LaunchTemplateVersions: { LaunchTemplateData: { UserData: string } }[];
    }>(["ec2", "describe-launch-template-versions", "--launch-template-id", template!, "--versions", "$Latest"]);
    const subnetCidr = this.subnets.get(instance.SubnetId)!;
    const podCidr = `100.96.${this.podRanges++}.0/24`;
    const hosts: Record<string, string> = {};
    const router = this.network!.routers[subnetCidr];
    for (const name of ["pkgs.k8s.io", ...AWS_ENDPOINTS]) hosts[name] = router;
    hosts[this.apiName] = this.network!.loadBalancer;
    const node = new Node(
      {
        id: instance.InstanceId,
        privateIp: instance.PrivateIpAddress,
        privateDnsName: instance.PrivateDnsName,
        instanceType: instance.InstanceType,
        vpcId: instance.VpcId,
        subnetId: instance.SubnetId,
        zone: instance.Placement.AvailabilityZone,
        mac: instance.NetworkInterfaces[0].MacAddress,
        subnetCidr,
        userData: Buffer.from(LaunchTemplateVersions[0].LaunchTemplateData.UserData),
      },
      {
        namespace: this.namespace,
        rootfs: join(BOX_CACHE, "rootfs"),
        images: join(BOX_CACHE, "images"),
        workDir: join(this.dir, "nodes", instance.InstanceId),
        router,
        dns: this.network!.dns,
        hosts,
        podCidr,
        cgroupParent: this.namespace,
      },
    );
    mkdirSync(join(this.dir, "nodes"), { recursive: true });
    this.nodes.set(instance.InstanceId, node);
    node.boot();
    addPodRoute(this.network!, podCidr, instance.PrivateIpAddress);
  }

  controlPlaneNodes(): Node[] {
    return [...this.nodes.values()].filter((n) => existsSync(join(n.root, "etc", "kubernetes", "admin.conf")));
  }

  /**
   * The first control-plane node whose API server is ready (`/readyz`, as the load balancer's health check
   * asks), else the first: one whose etcd is dead still answers TCP.
   */
  private async apiNode(): Promise<Node | undefined> {
    const all = this.controlPlaneNodes();
    for (const node of all) {
      const ready = await this.kubectlAt(node, ["get", "--raw", "/readyz", "--request-timeout=3s"]).then(
        () => true,
        () => false,
      );
      if (ready) return node;
    }
    return all[0];
  }

  /** kubectl with NODE's admin.conf, at NODE's own API server. */
  private kubectlAt(node: Node, args: string[], input?: string): Promise<string> {
    return run(
      "ip",
      [
        "netns",
        "exec",
        this.namespace,
        join(BOX_CACHE, "bin", "kubectl"),
        "--kubeconfig",
        join(node.root, "etc", "kubernetes", "admin.conf"),
        "--server",
        `https://${node.instance.privateIp}:443`,
        "--request-timeout=20s",
        ...args,
      ],
      { input, timeoutMs: 60_000 },
    ).then((r) => r.stdout);
  }

  /** kubectl as the cluster's admin (a ready control-plane node's admin.conf), inside the box. */
  async kubectl(args: string[], input?: string): Promise<string> {
    const node = await this.apiNode();
    if (!node) throw new Error("no control-plane node has an admin kubeconfig yet");
    return this.kubectlAt(node, args, input);
  }

  /**
   * COMMAND inside the box's network namespace with ENV added, as a person on the cluster's network runs it:
   * its exit status and output, never a rejection for a failed command.
   */
  async onTheNetwork(
    command: string[],
    env: Record<string, string> = {},
    timeoutMs = 120_000,
  ): Promise<{ status: number; stdout: string; stderr: string }> {
    const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    return new Promise((resolve) =>
      execFile(
        "ip",
        ["netns", "exec", this.namespace, "env", ...vars, ...command],
        { timeout: timeoutMs, encoding: "utf8" },
        (error, stdout, stderr) => {
          const code = (error as { code?: unknown } | null)?.code;
          resolve({ status: error ? (typeof code === "number" ? code : -1) : 0, stdout, stderr });
        },
      ),
    );
  }

  async kubectlJson<T>(args: string[]): Promise<T> {
    return JSON.parse(await this.kubectl([...args, "-o", "json"])) as T;
  }

  /**
   * etcdctl ARGS against NODE's etcd member (its address, port 2379), as kubeadm's health-check client
   * certificate on that node: the answer as JSON (`-w json`), its 64-bit ids as strings.
   */
  async etcdctl<T>(node: Node, args: string[]): Promise<T> {
    const pki = join(node.root, "etc", "kubernetes", "pki", "etcd");
    const { stdout } = await run("ip", [
      "netns",
      "exec",
      this.namespace,
      join(BOX_CACHE, "bin", "etcdctl"),
      `--endpoints=https://${node.instance.privateIp}:2379`,
      `--cacert=${join(pki, "ca.crt")}`,
      `--cert=${join(pki, "healthcheck-client.crt")}`,
      `--key=${join(pki, "healthcheck-client.key")}`,
      "--command-timeout=10s",
      "-w",
      "json",
      ...args,
    ]);
    // Member and cluster ids are 64-bit: kept as strings, exactly.
    return JSON.parse(stdout.replace(/(":\s*)(\d{16,})/g, '$1"$2"')) as T;
  }

  /**
   * The plan's Kubernetes objects, applied server-side as `pulumi up` applies them, once the API answers:
   * every object but the workloads whose images the box does not have (they are returned, by file).
   */
  async applyAddons(): Promise<string[]> {
    await until(
      "the API",
      async () => ((await this.kubectl(["get", "--raw", "/readyz"])).includes("ok") ? true : undefined),
      600_000,
      5000,
    );
    const images = new Set(readdirSync(join(BOX_CACHE, "images")).map((f) => f.replace(/\.tar$/, "")));
    const imageFile = (image: string) => image.replace(/[/:]/g, "_");
    const skipped: string[] = [];
    const dir = join(this.plan, "kubernetes");
    const files = readdirSync(dir).sort(
      (a, b) => Number(b.startsWith("customresourcedefinition")) - Number(a.startsWith("customresourcedefinition")),
    );
    const applied: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(dir, file), "utf8");
      const needed = parseAllDocuments(text).flatMap((d) => {
        const o = d.toJS() as {
          spec?: { template?: { spec?: { containers?: { image: string }[]; initContainers?: { image: string }[] } } };
        };
        const pod = o?.spec?.template?.spec;
        return [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])].map((c) => c.image);
      });
      if (!needed.every((image) => images.has(imageFile(image)))) skipped.push(file);
      else applied.push(file === CILIUM_CONFIG ? withoutUnmanagedPodRestarts(text) : text);
    }
    await this.kubectl(["apply", "--server-side", "--force-conflicts", "-f", "-"], applied.join("\n---\n"));
    await this.kubeProxyInSandbox();
    return skipped;
  }

  /**
   * nf_conntrack_max is global and read-only outside the host's network namespace, so kube-proxy on a box
   * node cannot set it (an EC2 node has a kernel of its own): kubeadm's kube-proxy configuration is told to
   * leave it (conntrack.maxPerCore 0), the sandbox's one change to the cluster. Nothing when kube-proxy is off.
   */
  private async kubeProxyInSandbox(): Promise<void> {
    const found = await this.kubectl([
      "-n",
      "kube-system",
      "get",
      "configmap",
      "kube-proxy",
      "--ignore-not-found",
      "-o",
      "json",
    ]);
    if (!found.trim()) return;
    const map = JSON.parse(found) as { metadata: Record<string, unknown>; data: Record<string, string> };
    map.metadata = { name: "kube-proxy", namespace: "kube-system" };
    const config = map.data["config.conf"];
    if (!/^ {2}maxPerCore: null$/m.test(config))
      throw new Error("kube-proxy's configuration has no conntrack.maxPerCore");
    map.data["config.conf"] = config.replace(/^ {2}maxPerCore: null$/m, "  maxPerCore: 0");
    await this.kubectl(["apply", "--server-side", "--force-conflicts", "-f", "-"], JSON.stringify(map));
    await this.kubectl(["-n", "kube-system", "delete", "pod", "-l", "k8s-app=kube-proxy", "--wait=false"]);
  }

  /** The end of a test file's box: stopped and removed, or with BOX_HOLD=1 kept running until Ctrl-C. */
  async release(): Promise<void> {
    if (process.env.BOX_HOLD === "1") {
      process.stdout.write("      BOX_HOLD=1: the box keeps running (tests/box/shell.sh); Ctrl-C stops it\n");
      await new Promise(() => {});
    }
    await this.stop();
  }

  /** An instance's Auto Scaling lifecycle state (`Pending:Wait`, `InService`, ...), or undefined once gone. */
  async lifecycleState(instanceId: string): Promise<string | undefined> {
    const { AutoScalingInstances } = await this.aws.aws<{ AutoScalingInstances: { LifecycleState: string }[] }>([
      "autoscaling",
      "describe-auto-scaling-instances",
      "--instance-ids",
      instanceId,
    ]);
    return AutoScalingInstances[0]?.LifecycleState;
  }

  /** Terminates an instance through Auto Scaling, which then launches its replacement (as after a failed health check). */
  async terminateInstance(instanceId: string): Promise<void> {
    await this.aws.aws([
      "autoscaling",
      "terminate-instance-in-auto-scaling-group",
      "--instance-id",
      instanceId,
      "--no-should-decrement-desired-capacity",
    ]);
  }

  /** Stops everything the box started and removes what it made. */
  async stop(): Promise<void> {
    this.forgetSignals();
    const timer = this.reconciling;
    this.reconciling = undefined;
    if (timer) clearTimeout(timer);
    // Each step runs whatever the one before it threw: nothing the box made is left behind.
    try {
      await this.reconcile;
      // The scenarios are over: every node killed at once, nothing of it judged any more.
      await Promise.allSettled([...this.nodes.values()].map((node) => node.stop(false)));
      await this.emulator?.stop();
    } finally {
      deleteNetwork(this.namespace);
      removeCgroups(this.namespace);
      if (process.env.BOX_KEEP !== "1") rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
