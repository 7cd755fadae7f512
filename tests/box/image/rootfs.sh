#!/usr/bin/env bash
# tests/box/image/rootfs.sh DIR: the box nodes' root file system: Debian 12 with what Ubuntu's AMI and the
# bootstrap's apt-get would give a node (systemd, cloud-init, containerd, runc, curl, gpg, iptables, the AWS
# CLI), and the files under rootfs/ that stand in for the sandbox. Written to DIR.tmp, then moved to DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "$1")
tmp="$out.tmp"
rm -rf "$tmp" "$out"
# debootstrap's second stage sometimes fails on python3-cryptography's order; apt-get -f install ends it.
debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,cloud-init,containerd,runc,curl,ca-certificates,gpg,apt-transport-https,iptables,iproute2,conntrack,ebtables,ethtool,socat,python3,python3-pip,kmod,procps,util-linux,mount,coreutils,openssl \
  bookworm "$tmp" http://deb.debian.org/debian || true
mount -t proc proc "$tmp/proc"
trap 'umount "$tmp/proc" 2>/dev/null || true' EXIT
cp /etc/resolv.conf "$tmp/etc/resolv.conf"
echo "deb http://deb.debian.org/debian bookworm main" >"$tmp/etc/apt/sources.list"
# The AWS CLI the bootstrap calls (Ubuntu: snap aws-cli), from PyPI, pinned: fetched by the host's pip
# (its index settings), installed by the node's Python.
python3 -m pip download -q --only-binary=:all: --python-version 3.11 --platform manylinux2014_x86_64 \
  -d "$tmp/opt/wheels" awscli==1.45.11
chroot "$tmp" /bin/bash -euc '
  export DEBIAN_FRONTEND=noninteractive
  dpkg --configure -a || true
  apt-get -f install -y -q
  apt-get install -y -q --no-install-recommends python3-venv
  python3 -m venv /opt/awscli && /opt/awscli/bin/pip install -q --no-index --find-links /opt/wheels awscli==1.45.11
  rm -rf /opt/wheels
  ln -sf /opt/awscli/bin/aws /usr/local/bin/aws
  apt-get clean'
# Nodes reach nothing outside the machine: no archive to update from (every package is installed).
: >"$tmp/etc/apt/sources.list"
rm -f "$tmp/etc/resolv.conf"
cp -a "$here/rootfs/." "$tmp/"
# This kernel's overlay and br_netfilter are built in: modprobe finds them through modules.builtin.
modules="$tmp/lib/modules/$(uname -r)"
mkdir -p "$modules"
printf 'kernel/fs/overlayfs/overlay.ko\nkernel/net/bridge/br_netfilter.ko\nkernel/net/bridge/bridge.ko\n' >"$modules/modules.builtin"
: >"$modules/modules.order"
chroot "$tmp" depmod -a "$(uname -r)" 2>/dev/null
chroot "$tmp" systemctl enable systemd-networkd box-cgroups.service box-images.service >/dev/null
chroot "$tmp" systemctl mask ifupdown-pre.service networking.service systemd-networkd-wait-online.service \
  apt-daily.timer apt-daily-upgrade.timer e2scrub_reap.service >/dev/null 2>&1 || true
umount "$tmp/proc"
trap - EXIT
mv "$tmp" "$out"
