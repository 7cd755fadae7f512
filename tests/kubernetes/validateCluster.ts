/**
 * `npm run validate-cluster` against the real API server of realControlPlane.test.ts (which calls this suite
 * inside its own, so the control plane starts once), run as users run it: the compiled bin/ script, with a
 * kubeconfig `npm run kubeconfig` would write and the dev stack's config, its Auto Scaling groups in the AWS
 * fake. The cluster is the dev stack's: the control-plane node kubeadm made and two workers, initialised as
 * the cloud controller manager does (providerID, zone), the add-ons' objects as their renderers draw them,
 * CiliumNode objects of Cilium's CRD, and what no kubelet runs here stood in for: kubeadm's static pods as
 * mirror pods, and every bound pod reported ready. The real controllers turn that into the DaemonSets' and
 * Deployments' status the check reads. Each case breaks one thing: a NotReady node, the Cilium operator
 * missing, an ENI node out of addresses.
 */
import { expect } from "chai";
import { ChildProcess, spawn } from "child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "fs";
import { createServer, connect, Server, Socket } from "net";
import { tmpdir } from "os";
import { dirname, join } from "path";
import { parse, stringify } from "yaml";
import { staleBuild } from "../../devtools/buildStamp";
import { certificateKubeconfig, signAdminCredential } from "./adminCertificate";
import { EXEC_CREDENTIAL_API, renderKubeconfig } from "../../components/adminAccess/kubeconfigRender";
import { INSTANCE_GROUP_TAG, ROLE_TAGS } from "../../catalogs/kopsTagKeys";
import type { ClusterSpec } from "../../config/types";
import { PROJECT_DIR } from "../../cli/plan/examples";
import { loadStackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../components/clusterConfigValidation";
import { addonRenders, CONTROL_PLANE_COMPONENTS } from "../../cli/clusterCheck/expectations";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { AMBIENT_KEY, AwsFake, sdkEnvironment, startAws } from "../standins/aws";
import { waitFor } from "../waitFor";
import type { ControlPlane } from "./controlPlane";
import { NODE_IP, NODE_NAME } from "./controlPlane";
import { registerNode, setReady, uninitialized } from "./kubeletStandIn";

const CRD = join(PROJECT_DIR, "tests", "oracles", "cilium-crds", "ciliumnodes-1.19.6.yaml");
const COMMAND = join(PROJECT_DIR, "bin", "cli", "validateCluster.js");

interface Machine {
  name: string;
  instanceId: string;
  zone: string;
  group: string;
}

/** Forwards a unix socket inside the host to the API server: the host's network is its own. */
const API_BRIDGE = `const net = require("net");
const [socket, host, port] = process.argv.slice(1);
net.createServer((c) => {
  const u = net.connect(+port, host); c.pipe(u).pipe(c); u.on("error", () => c.destroy()); c.on("error", () => u.destroy());
}).listen(socket);`;

function devSpec(): ClusterSpec {
  const config = toRuntimeConfig(
    loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), join(PROJECT_DIR, "Pulumi.dev.yaml")),
  );
  const { raw, region } = readRawConfig(config);
  const { spec, errors } = validateConfig(raw, region);
  expect(errors).to.deep.equal([]);
  return spec;
}

/** What a kubelet reports of a pod it runs: every container started and ready. */
function readyStatus(pod: { spec: { containers: { name: string; image: string }[] } }) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const condition = (type: string) => ({ type, status: "True", lastTransitionTime: now });
  return {
    status: {
      phase: "Running",
      hostIP: NODE_IP,
      startTime: now,
      conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map(condition),
      containerStatuses: pod.spec.containers.map((c) => ({
        name: c.name,
        image: c.image,
        imageID: "",
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: now } },
      })),
    },
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * INITIALISE(spec, nodes): the real cloud controller manager, rendered for SPEC, run until it has initialised
 * NODES (cloud.ts).
 */
export function validateClusterSuite(
  controlPlane: () => ControlPlane,
  initialise: (spec: ClusterSpec, nodes: string[]) => Promise<void>,
): void {
  describe("npm run validate-cluster against the real API server", function () {
    this.timeout(600_000);
    let cp: ControlPlane;
    let spec: ClusterSpec;
    let aws: AwsFake & { close(): Promise<void> };
    let bridge: Server;
    const sockets = new Set<Socket>();
    let kubeconfig: string;
    let withAws: NodeJS.ProcessEnv;
    let withoutAws: NodeJS.ProcessEnv;
    let machines: Machine[];
    let kubelets: NodeJS.Timeout | undefined;

    const kubectl = (args: string[], input?: string) => cp.kubectl(args, input);
    const json = (args: string[]) => JSON.parse(kubectl([...args, "-o", "json"]));

    /** The compiled command, asynchronously: the AWS fake and the bridge answer from this process. */
    const start = (env: NodeJS.ProcessEnv, ...args: string[]) => {
      const child: ChildProcess = spawn(
        process.execPath,
        [COMMAND, "--stack", "dev", ...(args.includes("--kubeconfig") ? [] : ["--kubeconfig", kubeconfig]), ...args],
        {
          cwd: PROJECT_DIR,
          env,
        },
      );
      const run: Run = { code: null, stdout: "", stderr: "" };
      child.stdout!.on("data", (d) => (run.stdout += d));
      child.stderr!.on("data", (d) => (run.stderr += d));
      const done = new Promise<Run>((resolve) => child.on("close", (code) => resolve({ ...run, code })));
      return { run, done };
    };
    const validate = (env: NodeJS.ProcessEnv, ...args: string[]) => start(env, ...args).done;

    /** The kubelets' part: every pod bound to a ready node that is not ready yet is reported running and ready. */
    const podsReady = () => {
      const isReady = (o: { status: { conditions?: { type: string; status: string }[] } }) =>
        o.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
      // Only a kubelet that is itself ready starts pods.
      const readyNodes = new Set(
        json(["get", "nodes"])
          .items.filter(isReady)
          .map((n: { metadata: { name: string } }) => n.metadata.name),
      );
      for (const pod of json(["get", "pods", "-A"]).items) {
        if (!readyNodes.has(pod.spec.nodeName) || isReady(pod) || pod.metadata.deletionTimestamp) continue;
        kubectl([
          "patch",
          "pod",
          "-n",
          pod.metadata.namespace,
          pod.metadata.name,
          "--subresource=status",
          "--type=merge",
          "-p",
          JSON.stringify(readyStatus(pod)),
        ]);
      }
    };

    const addonObjects = () => {
      const staged = addonRenders(
        spec,
        cp.apiHost,
        "https://sqs.us-east-1.amazonaws.com/000000000000/dev-k8s-local-nth",
      );
      return staged.flatMap(([, s]) => [...s.foundation, ...s.workloads]);
    };

    /** A CiliumNode as Cilium's agent creates it and its operator fills it in: `ips` addresses on 2 ENIs, `used` in use. */
    const ciliumNode = (name: string, ips: number, used: number) => {
      const pool = Array.from(
        { length: ips },
        (_, i) => `10.0.${machines.findIndex((m) => m.name === name) + 4}.${i + 10}`,
      );
      const enis = ["eni-0a01", "eni-0a02"];
      kubectl(
        ["apply", "--server-side", "--force-conflicts", "-f", "-"],
        JSON.stringify({
          apiVersion: "cilium.io/v2",
          kind: "CiliumNode",
          metadata: { name },
          spec: {
            "instance-id": machines.find((m) => m.name === name)!.instanceId,
            eni: { "instance-type": "t3.large", "first-interface-index": 0 },
            ipam: { pool: Object.fromEntries(pool.map((ip, i) => [ip, { resource: enis[i % 2] }])) },
          },
        }),
      );
      const status = {
        eni: {
          enis: Object.fromEntries(
            enis.map((id, n) => [id, { id, number: n, addresses: pool.filter((_, i) => i % 2 === n) }]),
          ),
        },
        ipam: {
          used: Object.fromEntries(
            pool.slice(0, used).map((ip) => [ip, { owner: `default/pod-${ip}`, resource: enis[0] }]),
          ),
        },
      };
      // The whole status replaced, as the operator writes it (a merge patch would keep addresses no longer used).
      const replace = [{ op: "add", path: "/status", value: status }];
      kubectl(["patch", "ciliumnode", name, "--subresource=status", "--type=json", "-p", JSON.stringify(replace)]);
    };

    const failures = (run: Run) =>
      run.stdout
        .split("VALIDATION ERRORS\n")[1]
        ?.split("\n\n")[0]
        .split("\n")
        .slice(1)
        .map((l) =>
          l
            .split(/\s{2,}/)
            .slice(0, 2)
            .join(" "),
        ) ?? [];

    before(async function () {
      cp = controlPlane();
      const stale = staleBuild(PROJECT_DIR);
      if (stale) throw new Error(`the command under test is the compiled one: ${stale}`);
      spec = devSpec();

      // The API at a local port, through the host's socket; the kubeconfig names the API's host for TLS.
      const socket = join(cp.host.root, "api.sock");
      cp.host.start("api-bridge", [process.execPath, "-e", API_BRIDGE, socket, NODE_IP, "443"]);
      await waitFor("the API bridge's socket", () => existsSync(socket) && statSync(socket).isSocket());
      bridge = createServer((c) => {
        const u = connect(socket);
        sockets.add(c).add(u);
        c.pipe(u).pipe(c);
        u.on("error", () => c.destroy());
        c.on("error", () => u.destroy());
      });
      await new Promise<void>((done) => bridge.listen(0, "127.0.0.1", done));
      const port = (bridge.address() as { port: number }).port;
      // The cluster's CA, as the node's kubeadm init made it.
      const pki = Object.fromEntries(
        ["ca.crt", "ca.key"].map((f) => [f, cp.host.must(["cat", `/etc/kubernetes/pki/${f}`])]),
      );
      const credential = signAdminCredential({
        caCertPem: pki["ca.crt"],
        caKeyPem: pki["ca.key"],
        user: "admin:arn:aws:iam::000000000000:user/alice",
        ttlMs: 3600_000,
      });
      const config = parse(
        certificateKubeconfig(spec.clusterName, `https://127.0.0.1:${port}`, pki["ca.crt"], credential),
      );
      config.clusters[0].cluster["tls-server-name"] = cp.apiHost;
      kubeconfig = join(mkdtempSync(join(tmpdir(), "validate-cluster-")), "kubeconfig");
      writeFileSync(kubeconfig, stringify(config), { mode: 0o600 });

      // The nodes: the control-plane node kubeadm made and one worker per minimum size of the node group.
      const groups = instanceGroups(spec);
      const workers = groups.find((g) => g.role === "node")!;
      // The first node's instance is the one its kubelet registered with (its providerID).
      const firstProviderID = json(["get", "node", NODE_NAME]).spec.providerID as string;
      machines = [
        {
          name: NODE_NAME,
          instanceId: firstProviderID.split("/").pop()!,
          zone: spec.network.availabilityZones[0],
          group: groups[0].name,
        },
        ...Array.from({ length: workers.minSize }, (_, i) => ({
          name: `ip-10-0-${i + 2}-20.ec2.internal`,
          instanceId: `i-0a00000000000b00${i + 1}`,
          zone: spec.network.availabilityZones[(i + 1) % 3],
          group: workers.name,
        })),
      ];
      for (const m of machines.slice(1)) registerNode(cp, { name: m.name, arch: "amd64", taints: [] });
      // The workers as their kubelets register (providerID) and the cloud controller manager labels them.
      for (const m of machines.slice(1)) {
        const patch = {
          metadata: { labels: { "topology.kubernetes.io/zone": m.zone } },
          spec: { providerID: `aws:///${m.zone}/${m.instanceId}` },
        };
        kubectl(["patch", "node", m.name, "--type=merge", "-p", JSON.stringify(patch)]);
      }
      kubectl(["uncordon", NODE_NAME]);
      // The first node still has the kubelet's cloud taint when the examples before did not run (--grep).
      if (uninitialized(cp, NODE_NAME)) await initialise(spec, [NODE_NAME]);
      machines[0].zone = json(["get", "node", NODE_NAME]).metadata.labels["topology.kubernetes.io/zone"];
      setReady(
        cp,
        machines.map((m) => m.name),
        true,
      );

      // kubeadm's static pods, as the kubelet mirrors them; the add-ons; Cilium's CRD and a CiliumNode per node.
      for (const component of CONTROL_PLANE_COMPONENTS)
        kubectl(
          ["create", "-f", "-"],
          JSON.stringify({
            apiVersion: "v1",
            kind: "Pod",
            metadata: {
              name: `${component}-${NODE_NAME}`,
              namespace: "kube-system",
              labels: { component, tier: "control-plane" },
              annotations: { "kubernetes.io/config.mirror": "mirror" },
            },
            spec: {
              nodeName: NODE_NAME,
              priorityClassName: "system-node-critical",
              hostNetwork: true,
              containers: [{ name: component, image: `registry.k8s.io/${component}:v1.35.4` }],
            },
          }),
        );
      kubectl(
        ["apply", "--server-side", "-f", "-"],
        addonObjects()
          .map((o) => JSON.stringify(o))
          .join("\n"),
      );
      kubectl(["apply", "--server-side", "-f", CRD]);
      await waitFor("the CiliumNode CRD", () => cp.tryKubectl(["get", "ciliumnodes"]).status === 0, 60_000);
      for (const m of machines) ciliumNode(m.name, 16, 5);
      // The kubelets' part from here on: the controllers create and bind pods, and they are reported ready.
      kubelets = setInterval(podsReady, 3000);

      // The Auto Scaling groups that hold the instances, and the AWS environment of the machine running the check.
      aws = await startAws({ region: spec.region, autoScalingKey: AMBIENT_KEY });
      for (const group of groups) {
        const asg = `${group.name}.${spec.clusterName}`;
        aws.groups.set(asg, {
          hooks: [],
          refreshes: [],
          settings: {
            minSize: group.minSize,
            maxSize: group.maxSize,
            desiredCapacity: group.desiredCapacity ?? group.minSize,
            zones: group.zones,
            launchTemplate: { id: `lt-${group.name}`, name: asg, version: "1" },
            tags: {
              KubernetesCluster: spec.clusterName,
              [INSTANCE_GROUP_TAG]: group.name,
              [ROLE_TAGS[group.role]]: "1",
            },
          },
        });
        for (const m of machines.filter((x) => x.group === group.name))
          aws.launch(
            {
              id: m.instanceId,
              privateIp: NODE_IP,
              zone: m.zone,
              instanceType: group.instanceType,
              mac: "0e:00:00:00:00:01",
              tags: {},
            },
            { name: asg, hooks: [] },
          );
      }
      const restore = sdkEnvironment(aws, {});
      withAws = { ...process.env };
      restore();
      withoutAws = {
        ...withAws,
        AWS_SHARED_CREDENTIALS_FILE: join(tmpdir(), "no-such-credentials"),
        AWS_CONFIG_FILE: join(tmpdir(), "no-such-config"),
        AWS_EC2_METADATA_DISABLED: "true",
      };
    });

    after(async () => {
      clearInterval(kubelets);
      for (const s of sockets) s.destroy();
      bridge?.close();
      await aws?.close();
    });

    it("a healthy cluster: --wait returns once the controllers report every workload ready, exit 0; so does a plain check", async function () {
      const waited = await validate(withAws, "--wait", "240s");
      expect(waited.code, `${waited.stdout}${waited.stderr}`).to.equal(0);
      const run = await validate(withAws);
      expect(run.code, run.stdout).to.equal(0);
      expect(run.stdout.trimEnd().split("\n").pop()).to.equal(`Your cluster ${spec.clusterName} is ready`);
      // Every node matched to its group through Auto Scaling, every group at its minimum, every node with addresses free.
      expect(run.stdout).to.match(/\ncontrol-plane-us-east-1a +control-plane +1 +2 +1 +1 +1\n/);
      expect(run.stdout).to.match(/\nnodes +node +2 +4 +2 +2 +2\n/);
      for (const m of machines) {
        expect(run.stdout).to.match(new RegExp(`\\n${m.name} +\\S+ +${m.group} +${m.zone} +True\\n`));
        expect(run.stdout).to.match(new RegExp(`\\n${m.name} +2 +16 +5 +11\\n`));
      }
      expect(run.stdout).to.match(
        /\nINSTANCE GROUPS\nNAME .*\ncontrol-plane-us-east-1a +control-plane +t3\.medium +1 +2 +us-east-1a +1 +1\/1 +0/,
      );
    });

    it("with the kubeconfig `npm run kubeconfig` writes (its user a command printing a credential): the same verdict", async () => {
      // The program's own rendering, its command replaced by one printing the certificate credential above: the
      // API server's token webhook (aws-iam-authenticator) does not run here, the client's exec path does.
      const user = parse(readFileSync(kubeconfig, "utf8")).users[0].user;
      const credential = JSON.stringify({
        apiVersion: EXEC_CREDENTIAL_API,
        kind: "ExecCredential",
        status: {
          clientCertificateData: Buffer.from(user["client-certificate-data"], "base64").toString(),
          clientKeyData: Buffer.from(user["client-key-data"], "base64").toString(),
        },
      });
      const cluster = parse(readFileSync(kubeconfig, "utf8")).clusters[0].cluster;
      const config = parse(
        renderKubeconfig({
          clusterName: spec.clusterName,
          server: cluster.server,
          caCertPem: Buffer.from(cluster["certificate-authority-data"], "base64").toString(),
          exec: { command: process.execPath, args: ["-e", `process.stdout.write(${JSON.stringify(credential)})`] },
        }),
      );
      config.clusters[0].cluster["tls-server-name"] = cp.apiHost;
      const execKubeconfig = join(dirname(kubeconfig), "exec-kubeconfig");
      writeFileSync(execKubeconfig, stringify(config), { mode: 0o600 });
      const run = await start(withAws, "--kubeconfig", execKubeconfig).done;
      expect(run.code, `${run.stdout}${run.stderr}`).to.equal(0);
      expect(run.stdout.trimEnd().split("\n").pop()).to.equal(`Your cluster ${spec.clusterName} is ready`);
    });

    it("without AWS credentials: the same verdict, nodes counted by role, and why the groups were not listed", async () => {
      const run = await validate(withoutAws);
      expect(run.code, run.stdout).to.equal(0);
      expect(run.stdout).to.contain(
        "INSTANCE GROUPS\nnot listed: no AWS credentials with the stack's AWS config (region us-east-1, the default credential chain)",
      );
      expect(run.stdout).to.match(/\nnodes +node +2 +4 +- +2 +2\n/);
    });

    it("a NotReady node: exit 1, the node and its group's shortfall; --wait returns 0 once it is ready again", async () => {
      const worker = machines[1];
      setReady(cp, [worker.name], false);
      const run = await validate(withAws);
      expect(run.code, run.stdout).to.equal(1);
      expect(failures(run)).to.deep.equal(["InstanceGroup nodes", `Node ${worker.name}`]);
      expect(run.stdout).to.contain(`node "${worker.name}" is not ready`);
      expect(run.stdout.trimEnd().split("\n").pop()).to.equal("Validation failed: 2 errors");

      const waiting = start(withAws, "--wait", "120s");
      await waitFor("the first check", () => waiting.run.stderr.includes("not healthy yet"), 60_000);
      setReady(cp, [worker.name], true);
      const waited = await waiting.done;
      expect(waited.code, `${waited.stdout}${waited.stderr}`).to.equal(0);
      expect(waited.stderr).to.contain("not healthy yet (2 errors, first: InstanceGroup nodes");
    });

    it("an ENI node out of pod addresses (its CiliumNode's pool all in use): exit 1, that node named", async () => {
      const worker = machines[2];
      ciliumNode(worker.name, 16, 16);
      const run = await validate(withAws);
      expect(run.code, run.stdout).to.equal(1);
      expect(failures(run)).to.deep.equal([`CiliumNode ${worker.name}`]);
      expect(run.stdout).to.contain(`node "${worker.name}" is out of pod addresses: 16 of 16 in use on 2 ENIs`);
      ciliumNode(worker.name, 16, 5);
      expect((await validate(withAws)).code).to.equal(0);
    });

    it("the Cilium operator missing: exit 1, its Deployment named", async () => {
      kubectl(["delete", "deployment", "-n", "kube-system", "cilium-operator", "--wait"]);
      const run = await validate(withAws);
      expect(run.code, run.stdout).to.equal(1);
      expect(failures(run)).to.deep.equal(["Deployment kube-system/cilium-operator"]);
      expect(run.stdout).to.contain("not found (the cilium add-on declares it)");
    });
  });
}
