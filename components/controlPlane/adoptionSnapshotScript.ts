/**
 * The script ExistingClusterAdoption runs, through SSM Run Command, on a control-plane node of a cluster
 * created before etcd had volumes, an init record and backups. Such a node has none of the control-plane
 * tools, so the script stands alone: it runs `etcdctl` inside kubeadm's etcd static pod (`crictl exec`),
 * saves the snapshot in etcd's data directory (the pod mounts it from the node at the same path), verifies
 * it, and uploads it where the node backups go (`etcd/<UTC time>.db`, SSE-KMS), so that the automatic
 * restore finds it. Pure: the same text for the same inputs.
 */
import { shellQuote } from "../nodes/shell";
import { TIMEOUTS } from "../timeouts";
import { ETCD_CLIENT } from "../wellKnownPorts";

export interface AdoptionSnapshotInputs {
  region: string;
  backupBucket: string;
}

/** The last line the script prints on success, before the snapshot's key. */
export const UPLOADED_PREFIX = "uploaded etcd snapshot ";

export function renderAdoptionSnapshotScript(inputs: AdoptionSnapshotInputs): string {
  return `#!/bin/bash
# A snapshot of this node's etcd member, uploaded to the cluster's backup bucket before the control plane
# moves its state onto etcd volumes. ADOPTION_ROOT is empty on a node (tests point it at a scratch root).
set -euo pipefail
export PATH="$PATH:/usr/local/bin:/usr/bin:/snap/bin"
region=${shellQuote(inputs.region)}
bucket=${shellQuote(inputs.backupBucket)}
root="\${ADOPTION_ROOT:-}"
runtime=unix:///run/containerd/containerd.sock
pki=/etc/kubernetes/pki/etcd

# etcd's data directory, as kubeadm's manifest gives it to etcd (kubeadm's default when it says nothing).
data_dir=$(sed -n 's/^ *- --data-dir=//p' "$root/etc/kubernetes/manifests/etcd.yaml" | head -n 1)
data_dir=\${data_dir:-/var/lib/etcd}

# crictl comes with kubeadm's packages and the bootstrap installs it; without it, the manual procedure.
if ! command -v crictl >/dev/null; then
  echo "crictl is not installed on this node" >&2
  exit 1
fi
container=$(crictl --runtime-endpoint "$runtime" ps --name '^etcd$' --state Running -q | head -n 1)
if [ -z "$container" ]; then
  echo "no running etcd container on this node" >&2
  exit 1
fi
# Each command in the container within ${TIMEOUTS.adoption.etcdExecSeconds / 60} minutes (etcdctl waits for an etcd that does not answer): crictl
# applies --timeout only to a synchronous exec (--sync, the CRI's ExecSync).
in_etcd() { crictl --runtime-endpoint "$runtime" exec --sync --timeout ${TIMEOUTS.adoption.etcdExecSeconds} "$container" "$@"; }

stamp=$(date -u +%Y%m%dT%H%M%SZ)
file="$data_dir/adoption-$stamp.db"
# etcdctl writes FILE.part first and leaves it behind when it is stopped.
trap 'rm -f "$root$file" "$root$file.part"' EXIT
in_etcd etcdctl --endpoints https://127.0.0.1:${ETCD_CLIENT} --cacert "$pki/ca.crt" --cert "$pki/server.crt" \\
  --key "$pki/server.key" snapshot save "$file" >/dev/null
# etcdutl's (etcd 3.5 on; 3.6 dropped etcdctl's), else etcdctl's: trying one, then the other, needs no shell
# in the container.
in_etcd etcdutl snapshot status "$file" -w simple >/dev/null 2>&1 ||
  in_etcd etcdctl snapshot status "$file" -w simple >/dev/null

key="etcd/$stamp.db"
tries=0
# The control-plane role may have been granted the upload moments ago: IAM takes a little while.
until aws s3 cp --region "$region" --only-show-errors --sse aws:kms "$root$file" "s3://$bucket/$key"; do
  tries=$((tries + 1))
  if [ "$tries" -ge 6 ]; then
    echo "could not upload the snapshot to s3://$bucket/$key" >&2
    exit 1
  fi
  sleep 10
done
echo "${UPLOADED_PREFIX}$key"
`;
}
