# etcd-dns.sh: the stable names of the etcd members (kOps's etcd-<zone>.internal.<cluster>, records of the
# cluster's private hosted zone). Members address each other by name, never by address: the node that holds
# a zone's member points the name at itself before etcd starts, so members that come back on new instances
# (even all of them at once, on their volumes) find each other again. ETCD_MEMBERS holds the bootstrap
# config's ZONE=NAME pairs, PRIVATE_ZONE_ID the hosted zone.

# etcd_member_name ZONE: the name of the member of ZONE.
etcd_member_name() {
  local pair
  for pair in $ETCD_MEMBERS; do
    if [ "${pair%%=*}" = "$1" ]; then
      echo "${pair#*=}"
      return 0
    fi
  done
  log "no etcd member name for zone $1"
  return 1
}

# etcd_member_names: every current member's name, one a line.
etcd_member_names() {
  local pair
  for pair in $ETCD_MEMBERS; do echo "${pair#*=}"; done
}

# etcd_peer_url HOST: the peer URL of the member at HOST (etcd's peer port over TLS; tests set their own).
etcd_peer_url() { echo "${ETCD_PEER_SCHEME:-https}://$1:${ETCD_PEER_PORT:-2380}"; }

# etcd_own_peer_url: this node's member's peer URL, by its zone's name.
etcd_own_peer_url() {
  local name
  name=$(etcd_member_name "$(imds placement/availability-zone)") || return 1
  etcd_peer_url "$name"
}

# etcd_dns_upsert NAME IP: the change batch that points NAME at IP (the only change the role may make).
etcd_dns_upsert() {
  printf '{"Changes":[{"Action":"UPSERT","ResourceRecordSet":{"Name":"%s","Type":"A","TTL":%s,"ResourceRecords":[{"Value":"%s"}]}}]}' \
    "$1" "$ETCD_MEMBER_TTL" "$2"
}

# etcd_dns_claim: points this zone's member name at this instance, and waits until Route53 has applied the
# change on all its servers (INSYNC, usually within a minute), before etcd starts.
etcd_dns_claim() {
  local name ip change tries=0
  name=$(etcd_member_name "$(imds placement/availability-zone)")
  ip=$(imds local-ipv4)
  change=$(retry aws route53 change-resource-record-sets --region "$REGION" --hosted-zone-id "$PRIVATE_ZONE_ID" \
    --change-batch "$(etcd_dns_upsert "$name" "$ip")" --query ChangeInfo.Id --output text)
  until [ "$(retry aws route53 get-change --region "$REGION" --id "$change" --query ChangeInfo.Status --output text)" = INSYNC ]; do
    tries=$((tries + 1))
    if [ "$tries" -ge "${ETCD_DNS_TRIES:-60}" ]; then
      log "Route53 did not apply $change ($name at $ip)"
      return 1
    fi
    sleep "${ETCD_DNS_INTERVAL:-5}"
  done
  log "etcd member name $name points at $ip"
}
