/**
 * SSM's GetParameters over HTTP (the SDK reaches it through AWS_ENDPOINT_URL, JSON 1.1 protocol), as the
 * admin kubeconfig command calls it. SecureString values come back in plaintext only with WithDecryption and
 * only to the access key KMS lets decrypt (`decrypts`); another caller gets AccessDeniedException, as SSM
 * answers when KMS refuses. Unknown names are listed in InvalidParameters.
 */
import { createServer } from "http";
import type { AddressInfo } from "net";

export interface SsmStandIn {
  url: string;
  close(): Promise<void>;
}

export function startSsm(parameters: Record<string, string>, decrypts: string): Promise<SsmStandIn> {
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const answer = (status: number, body: unknown) =>
        res.writeHead(status, { "content-type": "application/x-amz-json-1.1" }).end(JSON.stringify(body));
      if (req.headers["x-amz-target"] !== "AmazonSSM.GetParameters") {
        answer(400, { __type: "InvalidAction", message: String(req.headers["x-amz-target"]) });
        return;
      }
      const key = /Credential=([^/]+)\//.exec(String(req.headers.authorization))?.[1];
      const { Names, WithDecryption } = JSON.parse(text) as { Names: string[]; WithDecryption?: boolean };
      if (WithDecryption && key !== decrypts) {
        answer(400, { __type: "AccessDeniedException", message: "User is not authorized to decrypt" });
        return;
      }
      const found = Names.filter((n) => n in parameters);
      answer(200, {
        Parameters: found.map((Name) => ({
          Name,
          Type: "SecureString",
          Value: WithDecryption ? parameters[Name] : Buffer.from(parameters[Name]).toString("base64"),
        })),
        InvalidParameters: Names.filter((n) => !(n in parameters)),
      });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}
