# etcd-volume.sh: this member's etcd data lives on an encrypted EBS volume of its own, created by the program
# in the member's zone and tagged for the cluster and member; the root volume stays disposable. The instance
# that replaces a member finds the volume by its tags, attaches and mounts it, and comes back as that member.

# etcd_volume ZONE: "VOLUME_ID STATE ATTACHED_TO" of the member volume of this cluster in ZONE.
etcd_volume() {
  retry aws ec2 describe-volumes --region "$REGION" --filters "Name=tag:KubernetesCluster,Values=$CLUSTER_NAME" \
    "Name=tag:cilium-cluster/etcd-member,Values=$1" "Name=availability-zone,Values=$1" \
    --query 'Volumes[0].[VolumeId,State,Attachments[0].InstanceId]' --output text
}

# etcd_volume_device VOLUME_ID: the block device of an attached volume (NVMe instances name it by its id).
etcd_volume_device() {
  local by_id="${BOOTSTRAP_ROOT:-}/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${1//-/}"
  if [ -e "$by_id" ]; then echo "$by_id"; elif [ -e "${BOOTSTRAP_ROOT:-}/dev/xvdf" ]; then echo "${BOOTSTRAP_ROOT:-}/dev/xvdf"; else return 1; fi
}

# etcd_fstab_entry DIR: the volume's fstab line for the boots after this one. nofail keeps a missing volume
# from failing the boot, and by itself orders the mount only loosely (systemd.mount(5)): the kubelet could
# start the etcd static pod on the root disk first, a fresh one-member cluster. So the kubelet requires the
# mount and starts after it; without the volume the kubelet does not start.
etcd_fstab_entry() {
  echo "LABEL=etcd $1 ext4 defaults,nofail,x-systemd.required-by=kubelet.service,x-systemd.before=kubelet.service 0 2"
}

# etcd_volume_mount DIR: attaches this zone's member volume (waiting while the instance it replaces lets go
# of it), formats it only when it holds no file system, and mounts it at DIR. Run again (the bootstrap
# service retried), it keeps what an earlier run did: the volume attached to this instance, the mount.
etcd_volume_mount() {
  local zone volume state owner device self tries=0
  if mountpoint -q "${BOOTSTRAP_ROOT:-}$1"; then return 0; fi
  zone=$(imds placement/availability-zone)
  self=$(imds instance-id)
  read -r volume state owner <<<"$(etcd_volume "$zone")"
  if [ "$volume" = None ] || [ -z "$volume" ]; then
    log "no etcd volume for $zone"
    return 1
  fi
  if [ "$owner" != "$self" ]; then
    until [ "$state" = available ]; do
      tries=$((tries + 1))
      if [ "$tries" -ge "${ETCD_VOLUME_TRIES:-60}" ]; then
        log "etcd volume $volume stays $state"
        return 1
      fi
      sleep "${ETCD_VOLUME_INTERVAL:-10}"
      read -r volume state owner <<<"$(etcd_volume "$zone")"
    done
    retry aws ec2 attach-volume --region "$REGION" --volume-id "$volume" --instance-id "$self" --device /dev/sdf >/dev/null
  fi
  tries=0
  until device=$(etcd_volume_device "$volume"); do
    tries=$((tries + 1))
    if [ "$tries" -ge 60 ]; then return 1; fi
    sleep 2
  done
  if ! blkid "$device" >/dev/null; then mkfs.ext4 -q -L etcd "$device"; fi
  mkdir -p "${BOOTSTRAP_ROOT:-}$1"
  if ! grep -qs "^LABEL=etcd $1 " "${BOOTSTRAP_ROOT:-}/etc/fstab"; then
    etcd_fstab_entry "$1" >>"${BOOTSTRAP_ROOT:-}/etc/fstab"
  fi
  mount "$device" "${BOOTSTRAP_ROOT:-}$1"
  log "etcd volume $volume mounted at $1"
}

# kubeadm_rejoin (join_mode's rejoin; with the bootstrap's kubeadm functions): this node's volume holds a
# member's data. kubeadm join would add a new member, so the node
# runs kubeadm init on the existing data instead (kubeadm's documented restore path): etcd starts as the
# member it was, its --initial-cluster ignored, and the control plane's manifests and kubeconfigs are
# written from the shared CAs.
kubeadm_rejoin() {
  log "this node's etcd volume holds a member: coming back as that member"
  kubeadm_config kubeadm_init_configuration | write_file /etc/kubernetes/kubeadm.yaml 0600
  kubeadm init --config "${BOOTSTRAP_ROOT:-}/etc/kubernetes/kubeadm.yaml" \
    --ignore-preflight-errors=DirAvailable--var-lib-etcd-data
}

# etcd_peer_cert_has NAME: whether this member's peer certificate carries NAME, which a peer that dials the
# name verifies. kubeadm issues it from the cluster's ClusterConfiguration (every member's name); a cluster
# whose stored configuration predates a name gives a certificate without it. No certificate file: a member
# without peer TLS (tests).
etcd_peer_cert_has() {
  if [ -z "$ETCD_PEER_CERT" ]; then return 0; fi
  openssl x509 -in "${BOOTSTRAP_ROOT:-}$ETCD_PEER_CERT" -noout -ext subjectAltName | grep -qE "DNS:$1(,|$)"
}

# etcd_member_settle: after kubeadm (which adds and starts a member at its IP), this member's peer URL
# becomes its stable name. A member that still holds the name is this one's predecessor in the zone (its
# instance gone, its data not on this volume): etcd gives a peer URL to one member only, so it goes first.
# With a certificate that lacks the name the member keeps its address (peers could not verify the name).
etcd_member_settle() {
  local url name id member peer
  url=$(etcd_own_peer_url)
  name=${url#*://}
  name=${name%:*}
  if ! etcd_peer_cert_has "$name"; then
    log "this member's peer certificate does not name $name: it keeps its address"
    return 0
  fi
  id=$(etcd_local_member "$ETCD_LOCAL") || return 1
  while read -r member peer _; do
    if [ "$member" != "$id" ] && [ "$peer" = "$url" ]; then
      log "etcd member $member held $url before this one"
      etcd_member_remove "$member"
    fi
  done < <(etcd_members)
  while read -r member peer _; do
    if [ "$member" = "$id" ] && [ "$peer" != "$url" ]; then
      log "etcd member $id moves from $peer to $url"
      etcd_member_update_peer "$id" "$url"
    fi
  done < <(etcd_members)
}
