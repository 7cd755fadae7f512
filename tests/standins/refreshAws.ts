/**
 * AWS as the control-plane member wait sees it, over HTTP (the SDK reaches it through AWS_ENDPOINT_URL), in
 * the Query protocol both APIs speak:
 * - Auto Scaling DescribeInstanceRefreshes answers a group's refreshes, one scripted status per call (the
 *   last repeats), each call after `delayMs`;
 * - STS AssumeRole issues a role's credentials to the caller the role trusts.
 * Every call is checked as AWS checks a signature: a request signed with an access key the stand-in did not
 * issue for that call (another identity) or for another region is refused with AWS's own error codes, as
 * InvalidClientTokenId and SignatureDoesNotMatch.
 */
import { createServer, IncomingMessage, ServerResponse } from "http";
import type { AddressInfo } from "net";

export interface IssuedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface RefreshStandInOptions {
  /** The region every call must be signed for. */
  region: string;
  /** The access key Auto Scaling accepts: the identity the stack deploys as. */
  autoScalingKey: string;
  /** Group name → the status of its newest refresh at each call; no entry: the group has no refresh. */
  refreshes?: Record<string, ({ Status: string; StatusReason?: string } | string)[]>;
  /** Role ARN → the access key it trusts and the credentials it issues. */
  roles?: Record<string, { trusts: string; issues: IssuedCredentials }>;
  delayMs?: number;
}

export interface StandInCall {
  action: string;
  accessKeyId: string;
  region: string;
  params: Record<string, string>;
  /** When the call came in and when it was answered (Date.now()). */
  received: number;
  answered: number;
  refused?: string;
}

export interface RefreshStandIn {
  url: string;
  calls: StandInCall[];
  close(): Promise<void>;
}

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => resolve(text));
  });

function error(res: ServerResponse, status: number, code: string, message: string): void {
  res
    .writeHead(status, { "content-type": "text/xml" })
    .end(
      `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error>` +
        "<RequestId>r</RequestId></ErrorResponse>",
    );
}

export async function refreshStandIn(options: RefreshStandInOptions): Promise<RefreshStandIn> {
  const calls: StandInCall[] = [];
  const seen: Record<string, number> = {};
  const server = createServer(async (req, res) => {
    const received = Date.now();
    const params = Object.fromEntries(new URLSearchParams(await body(req)));
    const scope = /Credential=([^/]+)\/\d+\/([^/]+)\/([^/]+)\//.exec(String(req.headers.authorization)) ?? [];
    const [, accessKeyId = "", region = "", service = ""] = scope;
    const call: StandInCall = { action: params.Action, accessKeyId, region, params, received, answered: 0 };
    calls.push(call);
    await new Promise((r) => setTimeout(r, options.delayMs ?? 0));
    call.answered = Date.now();
    const refuse = (status: number, code: string, message: string) => {
      call.refused = code;
      error(res, status, code, message);
    };
    if (region !== options.region)
      return refuse(403, "SignatureDoesNotMatch", `Credential should be scoped to a valid region, not '${region}'`);
    if (service === "sts" && params.Action === "AssumeRole") {
      const role = options.roles?.[params.RoleArn];
      if (!role || role.trusts !== accessKeyId)
        return refuse(
          403,
          "AccessDenied",
          `${accessKeyId} is not authorized to perform sts:AssumeRole on ${params.RoleArn}`,
        );
      const c = role.issues;
      return res
        .writeHead(200, { "content-type": "text/xml" })
        .end(
          '<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>' +
            `<AccessKeyId>${c.accessKeyId}</AccessKeyId><SecretAccessKey>${c.secretAccessKey}</SecretAccessKey>` +
            `<SessionToken>${c.sessionToken ?? "token"}</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration>` +
            `</Credentials><AssumedRoleUser><Arn>${params.RoleArn}/${params.RoleSessionName}</Arn>` +
            "<AssumedRoleId>AROASTANDIN:s</AssumedRoleId></AssumedRoleUser></AssumeRoleResult>" +
            "<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>",
        );
    }
    if (service === "autoscaling" && params.Action === "DescribeInstanceRefreshes") {
      if (accessKeyId !== options.autoScalingKey)
        return refuse(403, "InvalidClientTokenId", "The security token included in the request is invalid.");
      const group = params.AutoScalingGroupName;
      const script = options.refreshes?.[group] ?? [];
      const n = (seen[group] = (seen[group] ?? -1) + 1);
      const step = script[Math.min(n, script.length - 1)];
      const members =
        step === undefined
          ? ""
          : (() => {
              const { Status, StatusReason } =
                typeof step === "string" ? { Status: step, StatusReason: undefined } : step;
              return (
                `<member><AutoScalingGroupName>${group}</AutoScalingGroupName><InstanceRefreshId>r-${n}</InstanceRefreshId>` +
                `<Status>${Status}</Status>${StatusReason ? `<StatusReason>${StatusReason}</StatusReason>` : ""}` +
                "<StartTime>2026-01-01T00:00:00Z</StartTime></member>"
              );
            })();
      return res
        .writeHead(200, { "content-type": "text/xml" })
        .end(
          '<DescribeInstanceRefreshesResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/">' +
            `<DescribeInstanceRefreshesResult><InstanceRefreshes>${members}</InstanceRefreshes>` +
            "</DescribeInstanceRefreshesResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>" +
            "</DescribeInstanceRefreshesResponse>",
        );
    }
    refuse(400, "InvalidAction", `the stand-in does not answer ${service} ${params.Action}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
