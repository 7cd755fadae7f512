/**
 * What `@pulumi/pulumi` loads as it loads and a plan never uses. Neither do `pulumi preview` and `pulumi up`,
 * but for OpenTelemetry and semver, which Pulumi's Node.js runner has loaded before the program anyway, and
 * gRPC, which they talk to the Pulumi engine through (`previewUses`), while a plan talks to the SDK's mock
 * monitor in its own process and loads it only on an error's path (for its status codes) or for transforms
 * and hooks, which the program has none of. runtimeSettings.ts has each that no preview uses load on first
 * use (loadOnFirstUse.ts), and planRuntimeSettings.ts the rest, for the plan, so that a run pays nothing for
 * them and anything that does use one still works; tests/runtimeSettings.test.ts checks both.
 */
import { existsSync } from "fs";
import { dirname, join } from "path";
import type { StandInShape } from "./loadOnFirstUse";

export interface UnusedModule extends StandInShape {
  /** What it is, and what loads it. */
  what: string;
  filename: string;
  /** `pulumi preview` and `pulumi up` use it: only a plan leaves it unloaded. */
  previewUses: boolean;
}

/** The file the SDK's `require(name)` finds; none where the package is not installed. */
function resolvedFrom(dir: string, name: string): string | undefined {
  try {
    return require.resolve(name, { paths: [dir] });
  } catch {
    // Not installed (TypeScript: the SDK falls back to the copy it ships).
    return undefined;
  }
}

/** The modules of the installed SDK, those it has. */
export function unusedSdkModules(): UnusedModule[] {
  const sdk = dirname(require.resolve("@pulumi/pulumi/package.json"));
  const modules: (Omit<UnusedModule, "filename"> & { filename: string | undefined })[] = [
    {
      what:
        "TypeScript's compiler, for the closure serializer (pulumi.runtime.serializeFunction), required by " +
        "runtime/closure/parseFunction.js through typescript-shim.js",
      filename: resolvedFrom(sdk, "typescript"),
      esModule: false,
      previewUses: false,
    },
    {
      what: "the Automation API (pulumi.automation), which drives the Pulumi CLI from code, required by index.js",
      filename: join(sdk, "automation", "index.js"),
      esModule: true,
      previewUses: false,
    },
    {
      what: "the provider server (pulumi.provider), for providers written in Node.js, required by index.js",
      filename: join(sdk, "provider", "index.js"),
      esModule: true,
      previewUses: false,
    },
    {
      what:
        "OpenTelemetry's API, for the trace context runtime/settings.js adds to each gRPC call to the Pulumi " +
        "engine: a plan makes none",
      filename: resolvedFrom(sdk, "@opentelemetry/api"),
      esModule: true,
      previewUses: false,
    },
    {
      what:
        "normalize-package-data (with its license and repository parsers), for the package.json files the " +
        "closure serializer reads (runtime/closure/codePaths.js)",
      filename: resolvedFrom(sdk, "normalize-package-data"),
      esModule: false,
      callable: true,
      previewUses: false,
    },
    {
      what:
        "semver, which runtime/rpc.js compares the versions of registered resource modules and of resource " +
        "references it deserializes with (the program imports each class from its own module, so registers " +
        "none, and passes no resource as an input), and the closure serializer TypeScript's with; Pulumi's " +
        "runner has loaded it before a preview anyway",
      filename: resolvedFrom(sdk, "semver"),
      esModule: false,
      readByName: true,
      previewUses: false,
    },
    {
      what:
        "gRPC, which the SDK talks to the Pulumi engine through (runtime/settings.js, its resource monitor and " +
        "engine clients), and serves transforms and hooks with (runtime/callbacks.js)",
      filename: resolvedFrom(sdk, "@grpc/grpc-js"),
      esModule: true,
      previewUses: true,
    },
    ...["resource", "engine", "callback"].map((service) => ({
      what: `the SDK's generated gRPC stubs of the ${service} service, which build their client class with gRPC as they load`,
      filename: join(sdk, "proto", `${service}_grpc_pb.js`),
      esModule: false,
      readByName: true,
      previewUses: true,
    })),
  ];
  return modules.filter((m): m is UnusedModule => m.filename !== undefined && existsSync(m.filename));
}
