/**
 * The real AWS cloud controller manager beside the real control plane, against moto's EC2 (cloud/ec2.py, in
 * the control plane's host). Each node the kubelet stand-in registers has a running instance at its address,
 * named as EC2 names it (`ip-10-0-2-20.ec2.internal`), its providerID the instance. The manager runs as its
 * DaemonSet's pod would on the first control-plane node: the rendered arguments, under its own service
 * account's token (so the program's RBAC for it is what its calls meet), its instance metadata that node's.
 * The manager, not the test, labels each node and removes the kubelet's cloud taint.
 */
import { existsSync, readFileSync } from "fs";
import { join } from "path";
import type { K8sObject } from "../../components/k8s/object";
import type { StagedObjects } from "../../components/k8s/stages";
import { cannotRun } from "../cannotRun";
import { missingEmulatorPackages } from "../emulatorPackages";
import { waitFor } from "../waitFor";
import type { ControlPlane } from "./controlPlane";
import { NODE_IP } from "./controlPlane";
import { UNINITIALIZED_TAINT } from "./kubeletStandIn";

const EC2 = join(__dirname, "cloud", "ec2.py");
const PORT = 4566;
const METADATA = `${NODE_IP}:8081`;
const CLOUD_ZONE = "us-east-1a";
/** The first node's subnet, and the one the other nodes' instances are run in. */
const SUBNETS = ["10.0.1.0/24", "10.0.2.0/24"];
// moto checks no signature: any key will do.
const AWS_ENV = { AWS_ACCESS_KEY_ID: "cloud", AWS_SECRET_ACCESS_KEY: "cloud", AWS_DEFAULT_REGION: "us-east-1" };
const MANAGER_KUBECONFIG = "/etc/kubernetes/cloud-controller-manager.conf";

/**
 * The labels the manager's node controller sets from the instance (k8s.io/cloud-provider controllers/node,
 * `getNodeModifiersFromCloudProvider`), which a fresh node has not.
 */
export const CLOUD_LABELS = [
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "node.kubernetes.io/instance-type",
];

export interface Instance {
  address: string;
  /** Its private DNS name, which kubeadm names the node after (the bootstrap's node name). */
  name: string;
  providerID: string;
}

export class Cloud {
  private nextAddress = 20;

  private constructor(
    private readonly cp: ControlPlane,
    private readonly subnets: Record<string, string>,
    private readonly clusterName: string,
  ) {}

  /** Starts EC2 and the metadata in CP's host; skips the calling hook when moto is missing (fails under CI). */
  static async start(context: Mocha.Context, cp: ControlPlane, clusterName: string): Promise<Cloud> {
    const reason = missingEmulatorPackages();
    if (reason) cannotRun(context, reason);
    cp.host.start("ec2", [
      "python3",
      EC2,
      "--port",
      String(PORT),
      "--metadata",
      METADATA,
      "--zone",
      CLOUD_ZONE,
      ...SUBNETS.flatMap((s) => ["--subnet", s]),
    ]);
    const log = join(cp.host.root, "logs", "ec2.log");
    const ready = () =>
      existsSync(log)
        ? readFileSync(log, "utf8")
            .split("\n")
            .find((l) => l.includes('"ready"'))
        : undefined;
    await waitFor(`moto's EC2 in the control plane's host (${log})`, () => ready() !== undefined, 60_000);
    return new Cloud(cp, JSON.parse(ready()!).subnets, clusterName);
  }

  private aws<T>(args: string[]): T {
    const out = this.cp.host.must(["aws", "--endpoint-url", `http://127.0.0.1:${PORT}`, "--output", "json", ...args], {
      env: { ...process.env, ...AWS_ENV },
    });
    return JSON.parse(out) as T;
  }

  /**
   * A running instance of TYPE, tagged as the program tags the cluster's instances, at ADDRESS (by default the
   * next free one of the nodes' subnet).
   */
  runInstance(instanceType: string, address = `10.0.2.${this.nextAddress++}`): Instance {
    const subnet = this.subnets[`${address.split(".").slice(0, 3).join(".")}.0/24`];
    const { Instances } = this.aws<{ Instances: { InstanceId: string; PrivateDnsName: string }[] }>([
      "ec2",
      "run-instances",
      "--image-id",
      "ami-12345678",
      "--instance-type",
      instanceType,
      "--subnet-id",
      subnet,
      "--private-ip-address",
      address,
      "--tag-specifications",
      `ResourceType=instance,Tags=[{Key=kubernetes.io/cluster/${this.clusterName},Value=owned}]`,
    ]);
    const [{ InstanceId, PrivateDnsName }] = Instances;
    return { address, name: PrivateDnsName, providerID: `aws:///${CLOUD_ZONE}/${InstanceId}` };
  }

  /**
   * Runs the real manager from MANIFESTS (its account and RBAC, applied server-side, and its DaemonSet's
   * arguments) until it has initialised every one of NODES, then stops it.
   */
  async initialise(binary: string, manifests: StagedObjects, nodes: string[]): Promise<void> {
    if (manifests.foundation.length > 0)
      this.cp.kubectl(
        ["apply", "--server-side", "-f", "-"],
        manifests.foundation.map((o) => JSON.stringify(o)).join("\n"),
      );
    const pod = manifests.workloads.find((o) => o.kind === "DaemonSet") as K8sObject & {
      spec: { template: { spec: { serviceAccountName: string; containers: { args: string[] }[] } } };
    };
    const { serviceAccountName, containers } = pod.spec.template.spec;
    const namespace = pod.metadata.namespace!;
    const token = this.cp.kubectl(["create", "token", serviceAccountName, "-n", namespace, "--duration=1h"]).trim();
    const server = this.cp.kubectl(["config", "view", "--raw", "-o", "jsonpath={.clusters[0].cluster.server}"]);
    this.cp.host.writeFile(
      MANAGER_KUBECONFIG,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "cluster", cluster: { server, "certificate-authority": "/etc/kubernetes/pki/ca.crt" } }],
        users: [{ name: serviceAccountName, user: { token } }],
        contexts: [{ name: "manager", context: { cluster: "cluster", user: serviceAccountName } }],
        "current-context": "manager",
      }),
      "0600",
    );
    const manager = this.cp.host.start("aws-cloud-controller-manager", [
      "env",
      ...Object.entries(AWS_ENV).map(([k, v]) => `${k}=${v}`),
      // The SDK's own settings for its endpoints (aws-sdk-go-v2's config): EC2 and the metadata service here.
      `AWS_ENDPOINT_URL=http://127.0.0.1:${PORT}`,
      `AWS_EC2_METADATA_SERVICE_ENDPOINT=http://${METADATA}`,
      binary,
      ...containers[0].args,
      // What a pod gets in-cluster: its account's token for every client.
      ...["kubeconfig", "authentication-kubeconfig", "authorization-kubeconfig"].map(
        (flag) => `--${flag}=${MANAGER_KUBECONFIG}`,
      ),
      // One manager, stopped and started for each test: no lease to wait out from the one before.
      "--leader-elect=false",
    ]);
    const exited = new Promise((resolve) => manager.once("exit", resolve));
    const initialised = () => {
      const all: { metadata: { name: string }; spec: { taints?: { key: string }[] } }[] = JSON.parse(
        this.cp.kubectl(["get", "nodes", "-o", "json"]),
      ).items;
      return nodes.every((n) =>
        all.some((o) => o.metadata.name === n && !o.spec.taints?.some((t) => t.key === UNINITIALIZED_TAINT.key)),
      );
    };
    try {
      await waitFor(
        "the cloud controller manager to initialise every node",
        () => {
          if (manager.exitCode !== null)
            throw new Error(
              `the cloud controller manager exited (${this.cp.host.root}/logs/aws-cloud-controller-manager.log)`,
            );
          return initialised();
        },
        90_000,
      );
    } finally {
      // Its work judged, it goes at once (its own shutdown is not under test); its ports are free for the next.
      manager.kill("SIGKILL");
      await exited;
    }
  }
}
