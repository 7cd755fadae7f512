/**
 * The kubeadm configurations every example renders (the plan's kubeadm/ files), and their placeholders filled
 * the way the node fills them: by the bootstrap's own `fill_placeholders` (bootstrap/kubeadm.sh), not by a
 * copy of it here.
 */
import { spawnSync } from "child_process";
import { parseAllDocuments } from "yaml";
import { modulePath } from "../../components/nodes/bootstrapModuleFiles";
import { API_SERVER_CONFIG_DIR } from "../../components/nodes/nodeFacts";
import { filesOf } from "../../components/nodes/userData";
import { factsHeader } from "../../components/nodes/shellHeader";
import { examples } from "../../cli/plan/examples";
import { renderStackFiles } from "../../cli/plan/render";

export interface RenderedKubeadmFile {
  example: string;
  /** The file's name in the plan, e.g. `kubeadm/nodes-join.yaml`. */
  name: string;
  text: string;
  /** `v1.35.4`: the example's Kubernetes version, from its ClusterConfiguration. */
  kubernetesVersion: string;
}

/** Every example's rendered files, once per test process (rendering runs the whole program). */
let rendered: Promise<Map<string, Map<string, string>>> | undefined;
export function renderedExamples(): Promise<Map<string, Map<string, string>>> {
  rendered ??= (async () => {
    const all = new Map<string, Map<string, string>>();
    for (const e of examples()) all.set(e.name, await renderStackFiles(e.file, e.name));
    return all;
  })();
  return rendered;
}

export async function renderedKubeadmFiles(): Promise<RenderedKubeadmFile[]> {
  const files: RenderedKubeadmFile[] = [];
  for (const [example, stack] of await renderedExamples()) {
    const kubeadm = [...stack].filter(([name]) => name.startsWith("kubeadm/"));
    const cluster = kubeadm
      .flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS()))
      .find((d) => d?.kind === "ClusterConfiguration");
    if (!cluster) throw new Error(`${example} renders no ClusterConfiguration`);
    for (const [name, text] of kubeadm)
      files.push({ example, name, text, kubernetesVersion: cluster.kubernetesVersion as string });
  }
  return files;
}

/** What the node fills in at boot (bootstrap/kubeadm.sh kubeadm_config), from its instance metadata. */
export interface NodeValues {
  nodeIp: string;
  /** The node's name, EC2's private DNS name of its instance: by default the us-east-1 one of nodeIp. */
  nodeName?: string;
}

/** EC2's private DNS name of an instance at IP in us-east-1 (what instance metadata's local-hostname says). */
export const ec2NodeName = (ip: string): string => `ip-${ip.replace(/\./g, "-")}.ec2.internal`;

const bash = (script: string, args: string[], input: string) => {
  // As in the bootstrap script: its header of facts, then the modules.
  const r = spawnSync("bash", ["-c", `${factsHeader()}\nsource "${modulePath("lib")}"; ${script}`, "bash", ...args], {
    input,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`${script}: ${r.stderr}`);
  return r.stdout;
};

/** The configuration with every placeholder filled, by the node's own `fill_placeholders`. */
export function fillAsTheNode(text: string, values: NodeValues): string {
  return bash(
    `source "${modulePath("kubeadm")}"; fill_placeholders "$@"`,
    [`NODE_IP=${values.nodeIp}`, `NODE_NAME=${values.nodeName ?? ec2NodeName(values.nodeIp)}`],
    text,
  );
}

/** The API server's configuration files a control-plane group's user data installs, by path. */
export const apiServerFilesOf = (userData: string): Record<string, string> =>
  Object.fromEntries(
    Object.entries(filesOf(userData)).filter(([path]) => path.startsWith(`${API_SERVER_CONFIG_DIR}/`)),
  );
