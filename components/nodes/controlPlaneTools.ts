/**
 * The control-plane tools bundle: one bash script holding the modules and units of the control plane's state
 * (controlPlaneState.ts), run as `control-plane-tools FUNCTION ARGS...` by the bootstrap and by the units it
 * installs. Pure: the same sources give the same bytes, and its SHA-256 goes into the user data.
 */
import { ETCD_CLIENT } from "../wellKnownPorts";
import { createHash } from "crypto";
import { readFileSync } from "fs";
import { join } from "path";
import { ETCD_MEMBER_RECORD_TTL, TOOLS_MODULES, TOOLS_PARAMETER, TOOLS_UNITS } from "./controlPlaneState";
import { withoutComments } from "./userData";
import { encodeUserData } from "./userDataEncoding";

const BOOTSTRAP_DIR = join(__dirname, "bootstrap");
const UNIT_DELIMITER = "UNIT";

/** The units the bundle installs, by file name. */
export function toolsUnits(): Record<string, string> {
  return Object.fromEntries(TOOLS_UNITS.map((n) => [n, readFileSync(join(BOOTSTRAP_DIR, "units", n), "utf8")]));
}

function installUnits(): string {
  const writes = Object.entries(toolsUnits()).map(([name, text]) => {
    if (text.split("\n").includes(UNIT_DELIMITER)) throw new Error(`unit ${name} holds its delimiter`);
    return `  write_file /etc/systemd/system/${name} <<'${UNIT_DELIMITER}'\n${text.trimEnd()}\n${UNIT_DELIMITER}`;
  });
  return ["install_units() {", ...writes, "}"].join("\n");
}

export function renderControlPlaneTools(): string {
  const modules = TOOLS_MODULES.map(
    (m) => `# bootstrap/${m}.sh\n${withoutComments(readFileSync(join(BOOTSTRAP_DIR, `${m}.sh`), "utf8"))}`,
  );
  return [
    "#!/bin/bash",
    "# cilium-cluster control-plane tools: control-plane-tools FUNCTION ARGS...",
    "set -euo pipefail",
    // This node's etcd member, over TLS with the health-check client certificate kubeadm issues.
    `: "\${ETCD_ENDPOINTS=https://127.0.0.1:${ETCD_CLIENT}}" "\${ETCD_LOCAL=https://127.0.0.1:${ETCD_CLIENT}}"`,
    "export ETCDCTL_CACERT=${ETCDCTL_CACERT-/etc/kubernetes/pki/etcd/ca.crt}",
    "export ETCDCTL_CERT=${ETCDCTL_CERT-/etc/kubernetes/pki/etcd/healthcheck-client.crt}",
    "export ETCDCTL_KEY=${ETCDCTL_KEY-/etc/kubernetes/pki/etcd/healthcheck-client.key}",
    // The certificate this member shows its peers, which must carry its name before peers dial the name.
    ': "${ETCD_PEER_CERT=/etc/kubernetes/pki/etcd/peer.crt}"',
    // The TTL of a member's record, as the program declares it (ApiDns): a node's UPSERT changes only the address.
    `ETCD_MEMBER_TTL=${ETCD_MEMBER_RECORD_TTL}`,
    "",
    ...modules,
    "# bootstrap/units",
    installUnits(),
    "",
    'if [ "$#" -gt 0 ]; then "$@"; fi',
    "",
  ].join("\n");
}

/** Hex SHA-256 of the bundle, as `sha256sum` prints it. */
export function controlPlaneToolsSha256(): string {
  return createHash("sha256").update(renderControlPlaneTools()).digest("hex");
}

/**
 * The bundle as stored in SSM: gzip, then base64, as user data is (the node reverses both and checks the
 * SHA-256 of the text). Deterministic (pako), so the parameters change only when the text does.
 */
function encodeControlPlaneTools(): string {
  return encodeUserData(renderControlPlaneTools());
}

/** The most a parameter holds: SSM's advanced tier takes values up to 8 KB. */
export const TOOLS_PART_BYTES = 8192;

/**
 * The encoded bundle cut into parameter-sized parts, in order: the node fetches as many as its user data
 * says (CONTROL_PLANE_TOOLS_PARTS) and joins them before decoding.
 */
export function controlPlaneToolsParts(): string[] {
  const encoded = encodeControlPlaneTools();
  const parts: string[] = [];
  for (let at = 0; at < encoded.length; at += TOOLS_PART_BYTES) parts.push(encoded.slice(at, at + TOOLS_PART_BYTES));
  return parts;
}

/** Part `index`'s parameter name below the control plane's prefix: the first keeps the bundle's name. */
export function toolsPartParameter(index: number): string {
  return index === 0 ? TOOLS_PARAMETER : `${TOOLS_PARAMETER}-${index}`;
}
