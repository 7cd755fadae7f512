# pki.sh: the cluster CA's public-key hash for kubeadm's discovery, computed in memory: a worker writes
# nothing under /etc/kubernetes/pki, whose ca.crt kubeadm join's preflight requires to be absent.

# ca_cert_hash: the SHA-256 of the public key of the PEM certificate on standard input, as kubeadm's
# caCertHashes want it (without the "sha256:" prefix).
ca_cert_hash() {
  openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | sha256sum | cut -d' ' -f1
}

# cluster_ca_hash: the hash of the cluster CA, read from SSM.
cluster_ca_hash() {
  local ca
  ca=$(secret ca.crt)
  ca_cert_hash <<<"$ca"
}
