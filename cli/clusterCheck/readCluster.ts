/**
 * Reads what the cluster check judges through a kubeconfig, with `@kubernetes/client-node`: the API server's
 * `/readyz?verbose`, kubeadm's ClusterConfiguration, the nodes, every pod, the add-ons' DaemonSets and
 * Deployments and, in ENI mode, the CiliumNodes. Lists are read page by page. An API server that does not
 * answer, or refuses the credential, is a state of its own: nothing else is read.
 */
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  V1DaemonSet,
  V1Deployment,
  V1Node,
  V1Pod,
} from "@kubernetes/client-node";
import { request, RequestOptions } from "https";
import { parse } from "yaml";
import type { CiliumNode, ClusterState, ReadyzCheck } from "./clusterState";
import type { Expectations } from "./expectations";
import { requestMs, within } from "./within";

const PAGE = 500;

/** Every item of a list, following `continue` tokens. */
async function listAll<T>(
  what: string,
  page: (p: { limit: number; _continue?: string }) => Promise<{ items: T[]; metadata?: { _continue?: string } }>,
): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined;
  do {
    const list = await within(what, page({ limit: PAGE, _continue: next }));
    items.push(...list.items);
    next = list.metadata?._continue || undefined;
  } while (next);
  return items;
}

/** `GET /readyz?verbose`: its checks, `[+]name ok` or `[-]name failed: ...`, one a line; the status when it is neither 200 nor 500. */
async function readyz(kc: KubeConfig, server: string): Promise<ReadyzCheck[]> {
  const url = new URL("/readyz?verbose", server);
  const options: RequestOptions = { method: "GET", timeout: requestMs };
  await kc.applyToHTTPSOptions(options);
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, options, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${requestMs / 1000}s`)));
    req.on("error", reject);
    req.end();
  });
  // 500 is /readyz's answer when a check fails; the body lists them all either way.
  if (status !== 200 && status !== 500)
    throw new Error(
      status === 401
        ? "HTTP 401: the API server refused the kubeconfig's credential (not one of api.admins, or no authenticator answered: npm run kubeconfig)"
        : `HTTP ${status} from /readyz: ${body.trim().slice(0, 200)}`,
    );
  return [...body.matchAll(/^\[([+-])\]([^ ]+) (ok|failed)/gm)].map((m) => ({ name: m[2], ok: m[1] === "+" }));
}

const notFound = (error: unknown) => error instanceof ApiException && error.code === 404;

async function kubeadmClusterName(core: CoreV1Api): Promise<string | undefined> {
  try {
    const cm = await within(
      "kube-system/kubeadm-config",
      core.readNamespacedConfigMap({ namespace: "kube-system", name: "kubeadm-config" }),
    );
    const config = parse(cm.data?.ClusterConfiguration ?? "") as { clusterName?: string } | null;
    return config?.clusterName;
  } catch (error) {
    if (notFound(error)) return undefined;
    throw error;
  }
}

async function ciliumNodes(custom: CustomObjectsApi): Promise<CiliumNode[]> {
  try {
    return await listAll<CiliumNode>("CiliumNodes", (p) =>
      custom.listClusterCustomObject({ group: "cilium.io", version: "v2", plural: "ciliumnodes", ...p }),
    );
  } catch (error) {
    // No CiliumNode CRD yet: Cilium's operator registers it when it first starts.
    if (notFound(error)) return [];
    throw error;
  }
}

/** Why a call failed, in a line: the API's status and message when it answered. */
function reason(error: unknown): string {
  if (error instanceof ApiException) {
    const body = error.body as { message?: string } | string | undefined;
    const message = typeof body === "object" && body?.message ? body.message : String(body ?? "");
    return `HTTP ${error.code}: ${message}`.trim();
  }
  return error instanceof Error ? error.message : String(error);
}

export async function readCluster(kc: KubeConfig, expected: Expectations): Promise<ClusterState> {
  const server = kc.getCurrentCluster()?.server ?? "";
  try {
    const checks = await readyz(kc, server);
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    const namespaces = [...new Set(expected.workloads.map((w) => w.namespace))];
    const perNamespace = async <T>(list: (namespace: string) => Promise<T[]>) =>
      (await Promise.all(namespaces.map(list))).flat();
    const [clusterName, nodes, pods, daemonSets, deployments, cilium] = await Promise.all([
      kubeadmClusterName(core),
      listAll<V1Node>("nodes", (p) => core.listNode(p)),
      listAll<V1Pod>("pods", (p) => core.listPodForAllNamespaces(p)),
      perNamespace((namespace) =>
        listAll<V1DaemonSet>("DaemonSets", (p) => apps.listNamespacedDaemonSet({ namespace, ...p })),
      ),
      perNamespace((namespace) =>
        listAll<V1Deployment>("Deployments", (p) => apps.listNamespacedDeployment({ namespace, ...p })),
      ),
      expected.eni ? ciliumNodes(kc.makeApiClient(CustomObjectsApi)) : Promise.resolve(undefined),
    ]);
    return {
      reachable: true,
      readyz: checks,
      kubeadmClusterName: clusterName,
      nodes,
      pods,
      daemonSets,
      deployments,
      ciliumNodes: cilium,
    };
  } catch (error) {
    return { reachable: false, server, error: reason(error) };
  }
}
