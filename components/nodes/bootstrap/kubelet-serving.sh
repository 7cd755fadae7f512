# kubelet-serving.sh: each kubelet serves its API (logs, exec, port-forward, its metrics) with a certificate
# the cluster CA signs for its own node's names and addresses, and the API server checks it against that CA
# (--kubelet-certificate-authority): a host that takes a node's address cannot answer in its place. The
# kubelet requests the certificate itself (serverTLSBootstrap: a CertificateSigningRequest to the signer
# kubernetes.io/kubelet-serving, again when its node's addresses change and before it expires), and the
# controller manager signs what is approved; nothing in Kubernetes approves that signer's requests (kubeadm
# leaves it to the cluster: "Kubelet serving certificates" in its certificate management docs). The control
# plane approves here what EC2 says is the node's: a request by the node NAME for NAME, whose DNS names and
# addresses all belong to the running instance EC2 names NAME in this cluster. Anything else is denied, and
# the kubelet asks again. This is the check EKS makes of its nodes' requests. A decision, not glue: made in
# Python, as drain.sh reads JSON, since bash cannot read a request's names; openssl decodes the request.

# pending_serving_requests: the pending requests to kubernetes.io/kubelet-serving (no condition yet) among the
# CertificateSigningRequests on standard input (kubectl's JSON list), one JSON object a line.
pending_serving_requests() {
  python3 -c 'import json, sys
for csr in json.load(sys.stdin)["items"]:
    if csr["spec"].get("signerName") == "kubernetes.io/kubelet-serving" and not csr.get("status", {}).get("conditions"):
        print(json.dumps(csr))'
}

# serving_verdicts INSTANCES: for each request on standard input (pending_serving_requests' lines), "approve
# NAME" or "deny NAME REASON", one a line. INSTANCES: the cluster's running instances as EC2 describes them (a
# JSON list). A request that cannot be read is denied: one never holds up the others.
serving_verdicts() {
  python3 -c 'import base64, ipaddress, json, re, subprocess, sys
NODES, PREFIX = "system:nodes", "system:node:"
USAGES = {"digital signature", "key encipherment", "server auth"}
instances = {i["PrivateDnsName"].lower(): i for i in json.loads(sys.argv[1]) if i.get("PrivateDnsName")}

def owned(instance):
    names = {n.lower() for n in (instance.get("PrivateDnsName"), instance.get("PublicDnsName")) if n}
    addresses = set()
    for eni in instance.get("NetworkInterfaces", []):
        for a in eni.get("PrivateIpAddresses", []):
            addresses.add(ipaddress.ip_address(a["PrivateIpAddress"]))
            if a.get("Association", {}).get("PublicIp"):
                addresses.add(ipaddress.ip_address(a["Association"]["PublicIp"]))
        for a in eni.get("Ipv6Addresses", []):
            addresses.add(ipaddress.ip_address(a["Ipv6Address"]))
    return names, addresses

def why_not(spec):
    user = spec.get("username", "")
    if not user.startswith(PREFIX) or NODES not in spec.get("groups", []):
        return "its requester is no node"
    usages = set(spec.get("usages", []))
    if "server auth" not in usages or not usages <= USAGES:
        return "usages other than a server certificate has"
    text = subprocess.run(["openssl", "req", "-noout", "-text", "-nameopt", "RFC2253"], capture_output=True,
                          input=base64.b64decode(spec["request"]), check=True).stdout.decode()
    subject = re.search(r"Subject: *(.*)", text).group(1)
    if sorted(p.strip() for p in subject.split(",")) != sorted(["CN=" + user, "O=" + NODES]):
        return "its subject is not its requester"
    san = re.search(r"X509v3 Subject Alternative Name:.*\n *(.*)", text)
    entries = [e.strip() for e in san.group(1).split(",")] if san else []
    names = {e[len("DNS:"):].lower() for e in entries if e.startswith("DNS:")}
    addresses = {ipaddress.ip_address(e[len("IP Address:"):]) for e in entries if e.startswith("IP Address:")}
    if not entries or len(names) + len(addresses) != len(entries):
        return "names other than DNS names and IP addresses, or none"
    node = user[len(PREFIX):]
    instance = instances.get(node)
    if instance is None:
        return "no running instance of this cluster is named " + node
    own_names, own_addresses = owned(instance)
    foreign = sorted(names - own_names) + sorted(str(a) for a in addresses - own_addresses)
    if foreign:
        return "not of its instance: " + " ".join(foreign)
    return None

for line in sys.stdin:
    csr = json.loads(line)
    try:
        reason = why_not(csr["spec"])
    except (KeyError, ValueError, AttributeError, subprocess.CalledProcessError):
        reason = "its request cannot be read"
    print(*(["approve", csr["metadata"]["name"]] if reason is None else ["deny", csr["metadata"]["name"], reason]))' "$1"
}

# cluster_instances_json: the cluster's running instances, as EC2 describes them (a JSON list).
cluster_instances_json() {
  aws ec2 describe-instances --region "$REGION" --output json \
    --filters "Name=tag:$CLUSTER_TAG,Values=$CLUSTER_NAME" "Name=instance-state-name,Values=running" \
    --query 'Reservations[].Instances[]'
}

# approve_serving_certificates: one round: the pending kubelet-serving requests approved or denied. EC2 is
# asked only when one is pending. Two control-plane nodes may decide the same request: the second's call
# fails, and the first's stands.
approve_serving_certificates() {
  local pending instances verdicts verdict name reason
  pending=$(kubectl_admin get certificatesigningrequests -o json | pending_serving_requests) || return 1
  if [ -z "$pending" ]; then return 0; fi
  instances=$(cluster_instances_json) || return 1
  verdicts=$(serving_verdicts "$instances" <<<"$pending") || return 1
  while read -r verdict name reason; do
    case "$verdict" in
    approve)
      if kubectl_admin certificate approve "$name" >/dev/null 2>&1; then log "approved $name"; fi
      ;;
    deny)
      if kubectl_admin certificate deny "$name" >/dev/null 2>&1; then log "denied $name: $reason"; fi
      ;;
    esac
  done <<<"$verdicts"
}

# approve_serving_certificates_while_up (kubelet-serving.service): approve_serving_certificates every
# NODE_CREDENTIALS_INTERVAL seconds; a round that fails (the API or AWS not answering) is tried again next time.
approve_serving_certificates_while_up() {
  while true; do
    approve_serving_certificates || log "approving kubelet serving certificates failed; again in ${NODE_CREDENTIALS_INTERVAL}s"
    sleep "$NODE_CREDENTIALS_INTERVAL"
  done
}
