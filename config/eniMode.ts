/**
 * Cilium's ENI IPAM mode (`networking.cilium.ipam: eni`), tested here and nowhere else: pods take secondary
 * addresses of their node's ENIs (kOps's `UsesSecondaryIP()`). It decides native routing and no masquerade,
 * the operator's AWS variant on the control plane, the kubelet's `--node-ip` (or the kubelet may report a
 * pod's address as the node's), the subnets' room for pods, and the control-plane role's ENI grants.
 */
export function eniMode(cilium: { ipam?: string }): boolean {
  return cilium.ipam === "eni";
}
