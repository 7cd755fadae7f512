# network.sh: systemd-networkd and cloud-init leave Cilium's routes, rules and (in ENI mode) ENIs alone.

# primary_interface MAC: the name of the interface with that MAC address.
primary_interface() {
  local mac="$1" dev
  for dev in "${BOOTSTRAP_ROOT:-}"/sys/class/net/*; do
    if [ "$(cat "$dev/address" 2>/dev/null)" = "$mac" ]; then
      basename "$dev"
      return 0
    fi
  done
  return 1
}

configure_networkd() {
  write_file /etc/systemd/networkd.conf.d/40-cilium-foreign-routes.conf <<'EOF'
[Network]
ManageForeignRoutes=no
ManageForeignRoutingPolicyRules=no
EOF
  if [ "$UNMANAGED_SECONDARY_ENIS" = true ]; then
    local primary
    primary=$(primary_interface "$(imds mac)")
    # The ENIs Cilium attaches are its own: no DHCP, addresses or routes from networkd or cloud-init.
    write_file /etc/systemd/network/75-cilium-eni-secondary.network <<EOF
[Match]
Driver=ena
Property=!INTERFACE=$primary

[Link]
Unmanaged=yes
EOF
    write_file /etc/systemd/network/99-default.link <<'EOF'
[Match]
OriginalName=*

[Link]
NamePolicy=keep kernel database onboard slot path
AlternativeNamesPolicy=database onboard slot path
MACAddressPolicy=none
EOF
    write_file /etc/cloud/cloud.cfg.d/99-disable-network-hotplug.cfg <<'EOF'
updates:
  network:
    when: ["boot-new-instance"]
EOF
  fi
  systemctl restart systemd-networkd
}
