/**
 * What a control-plane node runs to apply an add-on itself (kOps's channels tool, applied from the
 * control plane): the objects as one YAML stream, and a POSIX shell script that waits for the node's own
 * API server and applies them with the node's admin kubeconfig. Pure.
 */
import { stringify } from "yaml";
import { KUBERNETES_DIR, NODE_ROLE_FILE } from "../nodes/nodeFacts";
import { TIMEOUTS } from "../timeouts";
import type { K8sObject } from "./object";

/** Server-side apply's field manager for objects the control plane applies. */
export const FIELD_MANAGER = "cilium-cluster";
const END = "CILIUM_CLUSTER_MANIFEST";

/** The objects as a multi-document YAML stream, in order. */
export const manifestYaml = (objects: readonly K8sObject[]): string =>
  objects.map((o) => stringify(o, { lineWidth: 0 })).join("---\n");

/**
 * Waits for the local API (`/readyz` with `admin.conf`; `TIMEOUTS.addons`), then applies the stream. A node
 * whose bootstrap recorded another role than control-plane has nothing to do. The role marker decides, not
 * the files kubeadm writes: `kubeadm init` writes kubelet.conf before the API server's manifest, so those
 * would make a control-plane node look like a worker for a moment.
 */
export function applyScript(addon: string, objects: readonly K8sObject[]): string {
  const yaml = manifestYaml(objects);
  const { localApiWaitSeconds, localApiPollSeconds } = TIMEOUTS.addons;
  if (yaml.split("\n").includes(END)) throw new Error(`${addon}: a manifest line equals the here-document's end`);
  return [
    "#!/bin/sh",
    `# Applies the ${addon} add-on's objects from this control-plane node.`,
    "set -eu",
    `dir="\${KUBERNETES_DIR:-${KUBERNETES_DIR}}"`,
    'export KUBECONFIG="$dir/admin.conf"',
    `role_file="\${NODE_ROLE_FILE:-${NODE_ROLE_FILE}}"`,
    "tries=0",
    'until [ -s "$KUBECONFIG" ] && kubectl get --raw /readyz >/dev/null 2>&1; do',
    '  role=$(cat "$role_file" 2>/dev/null || true)',
    '  if [ -n "$role" ] && [ "$role" != control-plane ]; then',
    `    echo "not a control-plane node (role $role): ${addon} is applied by the control plane"`,
    "    exit 0",
    "  fi",
    "  tries=$((tries + 1))",
    `  if [ "$tries" -gt ${localApiWaitSeconds / localApiPollSeconds} ]; then`,
    `    echo "the local API server did not become ready in ${localApiWaitSeconds / 60} minutes" >&2`,
    "    exit 1",
    "  fi",
    `  sleep ${localApiPollSeconds}`,
    "done",
    `kubectl apply --server-side --force-conflicts --field-manager=${FIELD_MANAGER} -f - <<'${END}'`,
    yaml.replace(/\n$/, ""),
    END,
    "",
  ].join("\n");
}

/** An SSM Command document (schema 2.2) that runs the script on Linux. */
export function applyDocument(addon: string, objects: readonly K8sObject[]): string {
  return JSON.stringify({
    schemaVersion: "2.2",
    description: `Applies the ${addon} add-on's Kubernetes objects from a control-plane node.`,
    mainSteps: [
      {
        action: "aws:runShellScript",
        name: "apply",
        precondition: { StringEquals: ["platformType", "Linux"] },
        inputs: {
          runCommand: applyScript(addon, objects).split("\n"),
          timeoutSeconds: String(TIMEOUTS.addons.applyStepSeconds),
        },
      },
    ],
  });
}
