// bootstrap/kubelet-serving.sh: the control plane's approver of the kubelets' serving certificates. Its
// decision (serving_verdicts) run through bash itself, on requests openssl makes as the kubelet does (an EC
// key; the node's name as subject; its node's DNS names and addresses as SANs) and instances shaped as EC2
// describes them. The kubelets' own requests, the controller manager's signature and the API server's check
// run in the box (tests/box/cluster.test.ts).
import { expect } from "chai";
import { spawnSync } from "child_process";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { modulePath } from "../../components/nodes/bootstrapModuleFiles";
import { factsHeader } from "../../components/nodes/shellHeader";
import { cannotRun } from "../cannotRun";
import { requireDebianTool } from "../debianTools";

const SIGNER = "kubernetes.io/kubelet-serving";
const NODE = "ip-10-0-1-20.ec2.internal";
const OTHER = "ip-10-0-1-30.ec2.internal";

/** A certificate request as openssl makes it: SUBJECT ("/O=.../CN=..."), SANS ("DNS:a,IP:1.2.3.4"), base64. */
function request(subject: string, sans: string): string {
  const dir = mkdtempSync(join(tmpdir(), "csr-"));
  const key = join(dir, "key.pem");
  const run = (args: string[]) => {
    const r = spawnSync("openssl", args, { encoding: "utf8" });
    expect(r.status, r.stderr).to.equal(0);
    return r.stdout;
  };
  run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key]);
  const pem = run([
    "req",
    "-new",
    "-key",
    key,
    "-subj",
    subject,
    ...(sans ? ["-addext", `subjectAltName=${sans}`] : []),
  ]);
  return Buffer.from(pem).toString("base64");
}

/**
 * A request crafted as openssl would not write it, by the cryptography package: an attribute (a challenge
 * password) whose value reads, in openssl's text, as a subjectAltName; or a DNS name with a newline in it.
 */
function crafted(kind: "attribute" | "newline"): string {
  const program = `import base64, ipaddress, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import AttributeOID, NameOID
node, kind = sys.argv[1], sys.argv[2]
subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:nodes"), x509.NameAttribute(NameOID.COMMON_NAME, "system:node:" + node)])
builder = x509.CertificateSigningRequestBuilder().subject_name(subject)
if kind == "attribute":
    names = [x509.DNSName(node), x509.IPAddress(ipaddress.ip_address("10.96.0.1"))]
    fake = ("x\\n        Requested Extensions:\\n            X509v3 Subject Alternative Name: \\n                DNS:" + node + ", IP Address:10.0.1.20").encode()
    builder = builder.add_attribute(AttributeOID.CHALLENGE_PASSWORD, fake)
else:
    names = [x509.DNSName(node + "\\nkubernetes.default.svc"), x509.IPAddress(ipaddress.ip_address("10.0.1.20"))]
builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
request = builder.sign(ec.generate_private_key(ec.SECP256R1()), hashes.SHA256())
print(base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode())`;
  const r = spawnSync("python3", ["-c", program, NODE, kind], { encoding: "utf8" });
  expect(r.status, r.stderr).to.equal(0);
  return r.stdout.trim();
}

interface Csr {
  name: string;
  username?: string;
  groups?: string[];
  usages?: string[];
  signer?: string;
  subject?: string;
  sans?: string;
  conditions?: { type: string }[];
}

/** A CertificateSigningRequest as kubectl lists it: by default the node NODE's own, for its own addresses. */
function csr(c: Csr) {
  return {
    metadata: { name: c.name },
    spec: {
      signerName: c.signer ?? SIGNER,
      username: c.username ?? `system:node:${NODE}`,
      groups: c.groups ?? ["system:nodes", "system:authenticated"],
      usages: c.usages ?? ["digital signature", "server auth"],
      request: request(c.subject ?? `/O=system:nodes/CN=system:node:${NODE}`, c.sans ?? `DNS:${NODE},IP:10.0.1.20`),
    },
    ...(c.conditions ? { status: { conditions: c.conditions } } : {}),
  };
}

/** Instances as EC2 describes them: NODE with two ENIs (secondary addresses on both) and a public address. */
const INSTANCES = [
  {
    InstanceId: "i-node",
    PrivateDnsName: NODE,
    PublicDnsName: "ec2-3-80-1-20.compute-1.amazonaws.com",
    NetworkInterfaces: [
      {
        PrivateIpAddresses: [
          { PrivateIpAddress: "10.0.1.20", Primary: true, Association: { PublicIp: "3.80.1.20" } },
          { PrivateIpAddress: "10.0.1.21", Primary: false },
        ],
        Ipv6Addresses: [{ Ipv6Address: "2600:1f18::20" }],
      },
      { PrivateIpAddresses: [{ PrivateIpAddress: "10.0.1.40", Primary: true }] },
    ],
  },
  {
    InstanceId: "i-other",
    PrivateDnsName: OTHER,
    PublicDnsName: "",
    NetworkInterfaces: [{ PrivateIpAddresses: [{ PrivateIpAddress: "10.0.1.30", Primary: true }] }],
  },
];

/** serving_verdicts over CSRS and INSTANCES: its lines. */
function verdicts(csrs: ReturnType<typeof csr>[], instances: unknown[] = INSTANCES): string[] {
  const dir = mkdtempSync(join(tmpdir(), "verdicts-"));
  writeFileSync(join(dir, "csrs.json"), JSON.stringify({ items: csrs }));
  const r = spawnSync(
    "bash",
    [
      "-c",
      `set -euo pipefail; ${factsHeader()}\nsource "${modulePath("lib")}"; source "${modulePath("kubelet-serving")}"; pending_serving_requests <"$2" | serving_verdicts "$1"`,
      "bash",
      JSON.stringify(instances),
      join(dir, "csrs.json"),
    ],
    { encoding: "utf8" },
  );
  expect(r.status, r.stderr).to.equal(0);
  return r.stdout.split("\n").filter(Boolean);
}

describe("bootstrap/kubelet-serving.sh: serving_verdicts, which kubelet serving certificates the control plane approves", function () {
  before(function () {
    requireDebianTool(this, "openssl", "openssl");
    if (spawnSync("python3", ["-c", "import cryptography"]).status !== 0) {
      const reason = "python3 has no cryptography package: pip install cryptography (Debian: python3-cryptography)";
      if (process.env.CI === "true") throw new Error(`${reason} (required when CI=true)`);
      cannotRun(this, reason);
    }
  });

  it("approves a node's request for its instance's own names and addresses: private, secondary, of another ENI, public, IPv6", () => {
    expect(
      verdicts([
        csr({ name: "own" }),
        csr({
          name: "all-of-them",
          sans: `DNS:${NODE},DNS:ec2-3-80-1-20.compute-1.amazonaws.com,IP:10.0.1.20,IP:10.0.1.21,IP:10.0.1.40,IP:3.80.1.20,IP:2600:1f18:0:0:0:0:0:20`,
        }),
        csr({ name: "upper-case", sans: `DNS:${NODE.toUpperCase()},IP:10.0.1.20` }),
      ]),
    ).to.deep.equal(["approve own", "approve all-of-them", "approve upper-case"]);
  });

  it("denies an address or a name its instance does not have: another node's, or one EC2 never gave it", () => {
    expect(
      verdicts([
        csr({ name: "others-address", sans: `DNS:${NODE},IP:10.0.1.30` }),
        csr({ name: "others-name", sans: `DNS:${OTHER},IP:10.0.1.20` }),
        csr({ name: "made-up", sans: `DNS:${NODE},DNS:kubernetes.default.svc,IP:10.0.1.20` }),
      ]),
    ).to.deep.equal([
      "deny others-address not of its instance: 10.0.1.30",
      `deny others-name not of its instance: ${OTHER}`,
      "deny made-up not of its instance: kubernetes.default.svc",
    ]);
  });

  it("denies a request whose subject is not its requester, from no node, or of a node with no running instance", () => {
    expect(
      verdicts([
        csr({
          name: "as-another",
          subject: `/O=system:nodes/CN=system:node:${OTHER}`,
          sans: `DNS:${OTHER},IP:10.0.1.30`,
        }),
        csr({ name: "two-orgs", subject: `/O=system:nodes/O=system:masters/CN=system:node:${NODE}` }),
        csr({
          name: "not-a-node",
          username: "system:serviceaccount:default:builder",
          groups: ["system:serviceaccounts"],
        }),
        csr({ name: "no-nodes-group", groups: ["system:authenticated"] }),
        csr({
          name: "gone",
          username: "system:node:ip-10-0-1-99.ec2.internal",
          subject: "/O=system:nodes/CN=system:node:ip-10-0-1-99.ec2.internal",
          sans: "DNS:ip-10-0-1-99.ec2.internal,IP:10.0.1.99",
        }),
      ]),
    ).to.deep.equal([
      "deny as-another its subject is not its requester",
      "deny two-orgs its subject is not its requester",
      "deny not-a-node its requester is no node",
      "deny no-nodes-group its requester is no node",
      "deny gone no running instance of this cluster is named ip-10-0-1-99.ec2.internal",
    ]);
  });

  it("denies usages beyond a server's, names other than DNS names and addresses, and a request with none", () => {
    expect(
      verdicts([
        csr({ name: "client-too", usages: ["digital signature", "server auth", "client auth"] }),
        csr({ name: "no-server", usages: ["digital signature"] }),
        csr({ name: "email", sans: `DNS:${NODE},email:ops@example.com` }),
        csr({ name: "uri", sans: `DNS:${NODE},URI:spiffe://cluster/node` }),
        csr({ name: "no-names", sans: "" }),
      ]),
    ).to.deep.equal([
      "deny client-too usages other than a server certificate has",
      "deny no-server usages other than a server certificate has",
      "deny email names other than DNS names and IP addresses",
      "deny uri names other than DNS names and IP addresses",
      "deny no-names extensions other than its names, or no names",
    ]);
  });

  it("reads the request itself, not openssl's text of it: an attribute that reads as names, a newline in a name", () => {
    const attribute = csr({ name: "attribute" });
    attribute.spec.request = crafted("attribute");
    const newline = csr({ name: "newline" });
    newline.spec.request = crafted("newline");
    expect(verdicts([attribute, newline])).to.deep.equal([
      "deny attribute attributes other than its extensions",
      "deny newline a DNS name no host has",
    ]);
  });

  it("denies a request it cannot read, and still decides the others", () => {
    const garbled = csr({ name: "garbled" });
    garbled.spec.request = Buffer.from("not a certificate request").toString("base64");
    expect(verdicts([garbled, csr({ name: "own" })])).to.deep.equal([
      "deny garbled its request cannot be read",
      "approve own",
    ]);
  });

  it("leaves alone requests to other signers and those already decided", () => {
    expect(
      verdicts([
        csr({ name: "client", signer: "kubernetes.io/kube-apiserver-client-kubelet" }),
        csr({ name: "approved", conditions: [{ type: "Approved" }] }),
        csr({ name: "denied", sans: `DNS:${NODE},IP:10.0.1.30`, conditions: [{ type: "Denied" }] }),
      ]),
    ).to.deep.equal([]);
  });
});
