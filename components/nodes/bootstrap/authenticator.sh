# authenticator.sh: aws-iam-authenticator, the API server's token webhook for the cluster's admins
# (components/nodes/authenticator.ts). Glue around it: its serving key and the API server's kubeconfig
# for it, made before kubeadm starts the API server, which reads that file at start; its static pod, installed
# once kubeadm has run.

# prepare_authenticator: the serving key and certificate (once: a node keeps its own), and the webhook
# kubeconfig that trusts that certificate.
prepare_authenticator() {
  local cert
  local state="${BOOTSTRAP_ROOT:-}$AUTHENTICATOR_STATE_DIR"
  if [ ! -s "$state/cert.pem" ] || [ ! -s "$state/key.pem" ]; then
    install -d -m 0700 -o "$AUTHENTICATOR_UID" -g "$AUTHENTICATOR_UID" "$state"
    (umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -subj /CN=aws-iam-authenticator -addext "subjectAltName=IP:$AUTHENTICATOR_ADDRESS" \
      -keyout "$state/key.pem" -out "$state/cert.pem") || return 1
    chown "$AUTHENTICATOR_UID:$AUTHENTICATOR_UID" "$state/key.pem" "$state/cert.pem"
  fi
  cert=$(base64 -w0 <"$state/cert.pem")
  write_file "$AUTHENTICATOR_WEBHOOK_FILE" 0600 <<EOF_KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: aws-iam-authenticator
    cluster:
      server: https://$AUTHENTICATOR_ADDRESS:$AUTHENTICATOR_PORT/authenticate
      certificate-authority-data: $cert
users:
  - name: kube-apiserver
contexts:
  - name: webhook
    context:
      cluster: aws-iam-authenticator
      user: kube-apiserver
current-context: webhook
EOF_KUBECONFIG
}

# start_authenticator: its static pod, which the kubelet runs beside the API server, once it answers: the
# node goes in service (and behind the API's load balancer) only with its admins' webhook up.
start_authenticator() {
  install -m 0644 "${BOOTSTRAP_ROOT:-}$AUTHENTICATOR_POD_FILE" "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/manifests/aws-iam-authenticator.yaml"
  retry curl -sSfk --max-time 5 -o /dev/null "https://$AUTHENTICATOR_ADDRESS:$AUTHENTICATOR_PORT/healthz"
}
