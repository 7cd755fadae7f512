/**
 * A token for the cluster's API, as aws-iam-authenticator takes it (`aws eks get-token` makes the same): a
 * GetCallerIdentity request to the region's STS endpoint, presigned with the caller's credentials and with
 * the cluster's id in the signed header `x-k8s-aws-id`, base64url-encoded after `k8s-aws-v1.`. The
 * authenticator replays it to STS, so it proves who signed it for that cluster, and refuses it 15 minutes
 * after the signature (its `presignedURLExpiration`).
 */
import { SignatureV4 } from "@smithy/signature-v4";
import { createHash, createHmac } from "crypto";

/** What the signer hashes: strings and bytes. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

/** How long the authenticator takes a token from its signature. */
export const TOKEN_LIFETIME_SECONDS = 15 * 60;
/** What the token says of itself: a minute less, so a client renews before the server refuses (the AWS CLI's 14). */
const TOKEN_CLAIMED_SECONDS = TOKEN_LIFETIME_SECONDS - 60;
const CLUSTER_ID_HEADER = "x-k8s-aws-id";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === "string"
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** SHA-256, keyed (HMAC) or not, for the signer: Node's own. */
class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

/** STS's regional endpoint: what the authenticator accepts as the token's host. */
export const stsHost = (region: string, dnsSuffix: string) => `sts.${region}.${dnsSuffix}`;

export async function clusterToken(args: {
  clusterId: string;
  region: string;
  dnsSuffix: string;
  credentials: AwsCredentials;
  now?: Date;
}): Promise<{ token: string; expiration: Date }> {
  const now = args.now ?? new Date();
  const signer = new SignatureV4({
    service: "sts",
    region: args.region,
    credentials: args.credentials,
    sha256: Sha256,
  });
  const hostname = stsHost(args.region, args.dnsSuffix);
  const signed = await signer.presign(
    {
      method: "GET",
      protocol: "https:",
      hostname,
      path: "/",
      query: { Action: "GetCallerIdentity", Version: "2011-06-15" },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: args.clusterId },
    },
    // x-k8s-aws-id stays a signed header: the signer moves only x-amz-* headers into the query.
    { expiresIn: 60, signingDate: now },
  );
  const query = new URLSearchParams(signed.query as Record<string, string>).toString();
  const url = `https://${hostname}/?${query}`;
  return {
    token: `k8s-aws-v1.${Buffer.from(url).toString("base64url")}`,
    expiration: new Date(now.getTime() + TOKEN_CLAIMED_SECONDS * 1000),
  };
}
