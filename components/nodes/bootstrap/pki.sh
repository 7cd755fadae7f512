# pki.sh: the cluster CA every node trusts, and its public-key hash for kubeadm's discovery.

# ca_cert_hash: the SHA-256 of the public key of the PEM certificate on standard input, as kubeadm's
# caCertHashes want it (without the "sha256:" prefix).
ca_cert_hash() {
  openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | sha256sum | cut -d' ' -f1
}

fetch_ca() {
  secret ca.crt | write_file /etc/kubernetes/pki/ca.crt
}
