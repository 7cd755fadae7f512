/**
 * The AWS environment of a machine running `pulumi up`, for tests of the program's own AWS calls: shared
 * files with named profiles, an endpoint (a stand-in), and an ambient identity and region for the SDK's
 * default chain to find (the `default` profile, `AWS_REGION`): another identity and another region than the
 * stack's, so that a call made with the default chain instead of the stack's config reaches the stand-in as
 * someone else.
 */
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";

export const AMBIENT_KEY = "AKIAAMBIENTDEFAULT";
export const AMBIENT_REGION = "ap-south-1";

/** Sets the environment; returns what puts it back. */
export function awsEnvironment(endpoint: string, profiles: Record<string, string>): () => void {
  // Fresh files each time: the SDK caches shared files by path.
  const dir = mkdtempSync(join(tmpdir(), "aws-env-"));
  const credentials = Object.entries({ default: AMBIENT_KEY, ...profiles })
    .map(([name, key]) => `[${name}]\naws_access_key_id = ${key}\naws_secret_access_key = secret-of-${key}\n`)
    .join("\n");
  writeFileSync(join(dir, "credentials"), credentials);
  // A profile region that is not the stack's either: the stack's aws:region wins.
  writeFileSync(
    join(dir, "config"),
    Object.keys(profiles)
      .map((name) => `[profile ${name}]\nregion = eu-north-1\n`)
      .join("\n"),
  );
  const vars: Record<string, string | undefined> = {
    AWS_SHARED_CREDENTIALS_FILE: join(dir, "credentials"),
    AWS_CONFIG_FILE: join(dir, "config"),
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: undefined,
    AWS_SECRET_ACCESS_KEY: undefined,
    AWS_SESSION_TOKEN: undefined,
    AWS_REGION: AMBIENT_REGION,
    AWS_DEFAULT_REGION: AMBIENT_REGION,
    AWS_PROFILE: undefined,
  };
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(vars);
  return () => set(saved);
}
