#!/usr/bin/env bash
# tests/box/image/build.sh BUILT_DIR CACHE_DIR: what the box's nodes boot from, built once into CACHE_DIR and
# skipped when its stamp matches (the inputs' hashes and this kernel's release):
#   rootfs/  a Debian 12 root file system with what Ubuntu's AMI and the Debian archive would give the
#            bootstrap (systemd, cloud-init, containerd, runc, curl, the AWS CLI), nothing of the program;
#   tls/     a test CA and the certificate the emulator serves for pkgs.k8s.io and the AWS endpoints;
#   apt/     pkgs.k8s.io's Kubernetes repository for the built release, flat and signed with a test key;
#   images/  OCI archives of every image a node runs, named as kubeadm and the rendered manifests name them.
# Only what stands in for the sandbox is here (see docs/development.md, "The box"); the program's user data
# reaches the nodes unchanged.
set -euo pipefail
built=$(realpath -m "$1")
cache=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
k8s_version=v1.35.4
mkdir -p "$cache/bin"
binaries="$cache/bin"
log() { echo "box image: $*" >&2; }


# The binaries `npm run build:kubernetes` built (BUILT_DIR/<version>/), with pause and the box's workload
# built here, all in one folder.
collect_binaries() {
  binaries="$cache/bin"
  for pair in v1.35.4:kubeadm v1.35.4:kubelet v1.35.4:kubectl v1.35.4:kube-proxy v1.35.4:kube-apiserver \
    v1.35.4:kube-controller-manager v1.35.4:kube-scheduler v3.6.6:etcd v3.6.6:etcdctl v3.6.6:etcdutl \
    v1.34.0:crictl v1.14.3:coredns v1.35.3:aws-cloud-controller-manager v1.20.2:cilium-operator-aws \
    v1.25.1:node-termination-handler v0.7.13:aws-iam-authenticator; do
    if ! cmp -s "$built/${pair%%:*}/${pair#*:}" "$binaries/${pair#*:}"; then
      install -m 0755 "$built/${pair%%:*}/${pair#*:}" "$binaries/${pair#*:}"
    fi
  done
  # pause: Kubernetes's own C source (build/pause/linux/pause.c), static, as its image is built.
  pause_source="$(cd "$here/../../../tools/kubernetes/$k8s_version" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c"
  if [ ! -e "$binaries/pause" ] || [ "$pause_source" -nt "$binaries/pause" ]; then
    gcc -static -O2 -DVERSION=box -o "$binaries/pause" "$pause_source"
  fi
  (cd "$here/echo" && CGO_ENABLED=0 go build -trimpath -o "$binaries/box-echo.tmp" . && mv "$binaries/box-echo.tmp" "$binaries/box-echo")
}

# stamp NAME INPUTS...: true when NAME was built from these inputs before.
stamp_of() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }
fresh() { [ -e "$cache/$1.stamp" ] && [ "$(cat "$cache/$1.stamp")" = "$2" ]; }
mark() { echo "$2" >"$cache/$1.stamp"; }

# The test CA, which nodes trust as Ubuntu trusts the public CAs, and the emulator's certificate.
build_tls() {
  local names=(pkgs.k8s.io "$@") san
  san=$(printf 'DNS:%s,' "${names[@]}")
  local key
  key=$(echo "${names[*]}" | sha256sum | cut -d' ' -f1)
  if fresh tls "$key"; then return; fi
  log "test CA and the emulator's certificate"
  local d="$cache/tls"
  rm -rf "$d" && mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=cilium-cluster-box-ca -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj /CN=box-emulator -keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null
  printf 'subjectAltName=%s\n' "${san%,}" >"$d/ext"
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 \
    -extfile "$d/ext" -out "$d/server.crt" 2>/dev/null
  mark tls "$key"
}

# deb NAME VERSION DEPENDS ROOT: a .deb of the files under ROOT.
deb() {
  local name=$1 version=$2 depends=$3 root=$4
  mkdir -p "$root/DEBIAN"
  cat >"$root/DEBIAN/control" <<EOF
Package: $name
Version: $version
Architecture: amd64
Maintainer: cilium-cluster box <box@localhost>
Depends: $depends
Description: $name for the cilium-cluster box (built from its Go module)
EOF
  dpkg-deb --root-owner-group -Zgzip --build "$root" "$apt_dir/${name}_${version}_amd64.deb" >/dev/null
}

build_apt() {
  local key
  key=$(stamp_of "$here/build.sh" "$binaries/kubelet" "$binaries/kubeadm" "$binaries/kubectl" "$binaries/crictl" "$here/kubelet/"*)
  if fresh apt "$key"; then return; fi
  log "pkgs.k8s.io repository"
  local repo="$cache/apt" minor=${k8s_version%.*}
  apt_dir="$repo/core:/stable:/$minor/deb"
  rm -rf "$repo" && mkdir -p "$apt_dir"
  local work
  work=$(mktemp -d)
  local v=${k8s_version#v}-1.1
  mkdir -p "$work/kubelet/usr/bin" "$work/kubelet/usr/lib/systemd/system/kubelet.service.d"
  install -m 0755 "$binaries/kubelet" "$work/kubelet/usr/bin/kubelet"
  cp "$here/kubelet/kubelet.service" "$work/kubelet/usr/lib/systemd/system/"
  cp "$here/kubelet/10-kubeadm.conf" "$work/kubelet/usr/lib/systemd/system/kubelet.service.d/"
  deb kubelet "$v" "iptables, kubernetes-cni, iproute2, socat, util-linux, mount, ebtables, ethtool, conntrack" "$work/kubelet"
  for tool in kubeadm kubectl; do
    mkdir -p "$work/$tool/usr/bin"
    install -m 0755 "$binaries/$tool" "$work/$tool/usr/bin/$tool"
  done
  deb kubeadm "$v" "cri-tools, kubernetes-cni" "$work/kubeadm"
  deb kubectl "$v" "" "$work/kubectl"
  mkdir -p "$work/cri-tools/usr/bin" "$work/cni/opt/cni/bin"
  install -m 0755 "$binaries/crictl" "$work/cri-tools/usr/bin/crictl"
  deb cri-tools 1.34.0-1.1 "" "$work/cri-tools"
  # The standard CNI plugins, Debian's build of containernetworking/plugins, where kubernetes-cni puts them.
  cp -a /usr/lib/cni/. "$work/cni/opt/cni/bin/"
  deb kubernetes-cni 1.7.1-1.1 "" "$work/cni"
  rm -rf "$work"
  export GNUPGHOME="$cache/gnupg"
  rm -rf "$GNUPGHOME" && mkdir -m 0700 "$GNUPGHOME"
  gpg --batch --quiet --passphrase '' --quick-gen-key box-apt@localhost rsa2048 sign never
  (cd "$apt_dir" && apt-ftparchive packages . >Packages && apt-ftparchive release . >Release)
  gpg --batch --yes --armor --export box-apt@localhost >"$apt_dir/Release.key"
  gpg --batch --yes --clearsign -o "$apt_dir/InRelease" "$apt_dir/Release"
  gpg --batch --yes -abs -o "$apt_dir/Release.gpg" "$apt_dir/Release"
  mark apt "$key"
}

# image NAME FILES_ROOT ENTRYPOINT: an OCI archive named NAME (what a manifest names), of FILES_ROOT.
image() {
  local name=$1 root=$2 entry=$3 file
  file="$cache/images/$(echo "$name" | tr '/:' '__').tar"
  local oci
  oci=$(mktemp -d)
  umoci init --layout "$oci/layout" >/dev/null
  umoci new --image "$oci/layout:img" >/dev/null
  umoci unpack --rootless --image "$oci/layout:img" "$oci/bundle" >/dev/null 2>&1
  cp -a "$root/." "$oci/bundle/rootfs/"
  umoci repack --image "$oci/layout:img" "$oci/bundle" >/dev/null
  umoci config --image "$oci/layout:img" --config.entrypoint "$entry" >/dev/null
  skopeo copy -q "oci:$oci/layout:img" "docker-archive:$file:$name" >/dev/null
  rm -rf "$oci"
}

# one_binary NAME BINARY IN_IMAGE: an image of one static binary, and the test CA as its trust store.
one_binary() {
  local root
  root=$(mktemp -d)
  install -D -m 0755 "$2" "$root$3"
  install -D -m 0644 "$cache/tls/ca.crt" "$root/etc/ssl/certs/ca-certificates.crt"
  image "$1" "$root" "$3"
  rm -rf "$root"
}

build_images() {
  local key names
  key=$(stamp_of "$here/build.sh" "$binaries"/* "$cache/tls/ca.crt")
  if fresh images "$key"; then return; fi
  log "images"
  rm -rf "$cache/images" && mkdir -p "$cache/images"
  names=$("$binaries/kubeadm" config images list --kubernetes-version "$k8s_version" 2>/dev/null)
  local name component
  for name in $names; do
    component=${name##*/}
    component=${component%%:*}
    case "$component" in
    kube-apiserver | kube-controller-manager | kube-scheduler)
      one_binary "$name" "$binaries/$component" "/usr/local/bin/$component" ;;
    etcd)
      local root
      root=$(mktemp -d)
      for b in etcd etcdctl etcdutl; do install -D -m 0755 "$binaries/$b" "$root/usr/local/bin/$b"; done
      image "$name" "$root" /usr/local/bin/etcd
      rm -rf "$root" ;;
    coredns) one_binary "$name" "$binaries/coredns" /coredns ;;
    pause)
      one_binary "$name" "$binaries/pause" /pause
      # containerd 1.6's default sandbox image
      one_binary registry.k8s.io/pause:3.6 "$binaries/pause" /pause ;;
    kube-proxy) kube_proxy_image "$name" ;;
    esac
  done
  one_binary registry.k8s.io/provider-aws/cloud-controller-manager:v1.35.0 "$binaries/aws-cloud-controller-manager" /bin/aws-cloud-controller-manager
  one_binary quay.io/cilium/operator-aws:v1.20.2 "$binaries/cilium-operator-aws" /usr/bin/cilium-operator-aws
  one_binary public.ecr.aws/aws-ec2/aws-node-termination-handler:v1.25.5 "$binaries/node-termination-handler" /node-termination-handler
  one_binary public.ecr.aws/eks-distro/kubernetes-sigs/aws-iam-authenticator:v0.7.13-eks-1-35-9 "$binaries/aws-iam-authenticator" /aws-iam-authenticator
  one_binary box.local/echo:1 "$binaries/box-echo" /box-echo
  mark images "$key"
}

# kube-proxy runs iptables: its image holds the node image's iptables, its extensions, and their libraries.
kube_proxy_image() {
  local root f lib
  root=$(mktemp -d)
  install -D -m 0755 "$binaries/kube-proxy" "$root/usr/local/bin/kube-proxy"
  mkdir -p "$root/usr/lib/x86_64-linux-gnu"
  cp -a "$cache/rootfs/usr/lib/x86_64-linux-gnu/xtables" "$root/usr/lib/x86_64-linux-gnu/"
  for f in "$cache/rootfs"/usr/sbin/xtables-nft-multi "$cache/rootfs"/usr/sbin/xtables-legacy-multi \
    "$cache/rootfs"/usr/lib/x86_64-linux-gnu/xtables/*.so; do
    f=${f#"$cache/rootfs"}
    install -D "$cache/rootfs$f" "$root$f"
    chroot "$cache/rootfs" ldd "$f" | awk '/=>/ {print $3} /ld-linux/ {print $1}' | while read -r lib; do
      if [ ! -e "$root$lib" ]; then install -D "$cache/rootfs$lib" "$root$lib"; fi
    done
  done
  for f in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -s xtables-nft-multi "$root/usr/sbin/$f"
  done
  mkdir -p "$root/etc" "$root/run" "$root/tmp"
  image "$1" "$root" /usr/local/bin/kube-proxy
  rm -rf "$root"
}

# The AWS names the nodes and the controllers call, besides pkgs.k8s.io (also box.ts's HOSTS).
read -ra aws_names <<<"$(cat "$here/aws-endpoints")"
# The root file system: rootfs.sh, again only when it or the files it adds change, or the kernel does.
rootfs_key="$({ cat "$here/rootfs.sh"; find "$here/rootfs" -type f | sort | xargs cat; } | sha256sum | cut -d' ' -f1)-$(uname -r)"
if ! fresh rootfs "$rootfs_key"; then
  log "root file system (debootstrap, a few minutes)"
  "$here/rootfs.sh" "$cache/rootfs"
  mark rootfs "$rootfs_key"
fi
# BOX_ROOTFS_ONLY=1: only that, which needs none of the built binaries (.ci/run makes it while they build).
if [ "${BOX_ROOTFS_ONLY:-}" = 1 ]; then exit 0; fi
collect_binaries
build_tls "${aws_names[@]}"
install -D -m 0644 "$cache/tls/ca.crt" "$cache/rootfs/usr/local/share/ca-certificates/cilium-cluster-box.crt"
chroot "$cache/rootfs" update-ca-certificates >/dev/null 2>&1
build_apt
build_images
log "ready in $cache"
