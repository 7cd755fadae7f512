/**
 * EC2's instance metadata service as the bootstrap's functions reach it (IMDSv2: a token, then
 * `/latest/meta-data/<key>`), answering the keys given and 404 for any other, as IMDS does.
 */
import { createServer, Server } from "http";

export function startImds(metadata: Record<string, string>): Promise<Server> {
  const server = createServer((req, res) => {
    const key = req.url?.replace("/latest/meta-data/", "") ?? "";
    if (req.method === "PUT" && req.url === "/latest/api/token") res.end("token");
    else if (!(key in metadata)) res.writeHead(404).end();
    else res.end(metadata[key]);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}
