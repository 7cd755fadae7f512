# kubelet-serving.sh: each kubelet serves its API (logs, exec, port-forward, its metrics) with a certificate
# the cluster CA signs for its own node's names and addresses, and the API server checks it against that CA
# (--kubelet-certificate-authority): a host that takes a node's address cannot answer in its place. The
# kubelet requests the certificate itself (serverTLSBootstrap: a CertificateSigningRequest to the signer
# kubernetes.io/kubelet-serving, again when its node's addresses change and before it expires), and the
# controller manager signs what is approved; nothing in Kubernetes approves that signer's requests (kubeadm
# leaves it to the cluster: "Kubelet serving certificates" in its certificate management docs). The control
# plane approves here what EC2 says is the node's: a request by the node NAME for NAME, whose DNS names and
# addresses all belong to the running instance EC2 names NAME in this cluster. Anything else is denied, and
# the kubelet asks again. (postfinance's kubelet-csr-approver checks names against DNS and IP prefixes; the
# instance is the stronger witness here.) A decision, not glue: made in Python, as drain.sh reads JSON, since
# bash cannot read a request.

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
# JSON list). The request is read with the cryptography package's parser (python3-cryptography), never from
# openssl's text, which a request can shape (an attribute's value, a newline in a name). Only what the kubelet
# asks for is approved (pkg/kubelet/certificate/kubelet.go): its subject, the extension request alone, a
# subjectAltName of DNS names and IP addresses, a valid signature. A request that cannot be read is denied:
# one never holds up the others.
serving_verdicts() {
  python3 -c 'import base64, ipaddress, json, re, sys
from cryptography import x509
from cryptography.x509.oid import ExtensionOID, NameOID
NODES, PREFIX = "system:nodes", "system:node:"
USAGES = {"digital signature", "key encipherment", "server auth"}
EXTENSION_REQUEST = "1.2.840.113549.1.9.14"
HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?")
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
    request = x509.load_pem_x509_csr(base64.b64decode(spec["request"]))
    if not request.is_signature_valid:
        return "its signature is not valid"
    subject = sorted((a.oid.dotted_string, a.value) for a in request.subject)
    if subject != sorted([(NameOID.COMMON_NAME.dotted_string, user), (NameOID.ORGANIZATION_NAME.dotted_string, NODES)]):
        return "its subject is not its requester"
    if any(a.oid.dotted_string != EXTENSION_REQUEST for a in request.attributes):
        return "attributes other than its extensions"
    extensions = list(request.extensions)
    if [e.oid for e in extensions] != [ExtensionOID.SUBJECT_ALTERNATIVE_NAME]:
        return "extensions other than its names, or no names"
    entries = list(extensions[0].value)
    names = [e.value.lower() for e in entries if isinstance(e, x509.DNSName)]
    addresses = {e.value for e in entries if isinstance(e, x509.IPAddress)}
    if not entries or len(names) + len(addresses) != len(entries):
        return "names other than DNS names and IP addresses"
    if not all(HOST_NAME.fullmatch(n) for n in names):
        return "a DNS name no host has"
    node = user[len(PREFIX):]
    instance = instances.get(node)
    if instance is None:
        return "no running instance of this cluster is named " + node
    own_names, own_addresses = owned(instance)
    foreign = sorted(set(names) - own_names) + sorted(str(a) for a in addresses - own_addresses)
    if foreign:
        return "not of its instance: " + " ".join(foreign)
    return None

for line in sys.stdin:
    csr = json.loads(line)
    try:
        reason = why_not(csr["spec"])
    except Exception:  # any request the parser refuses, whatever it raises
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
# repeats the first's verdict or fails, and the first's stands.
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
