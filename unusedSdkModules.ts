/**
 * What `@pulumi/pulumi` loads as it loads and a run of this program (a plan, `pulumi preview`, `pulumi up`)
 * never uses. runtimeSettings.ts has each load on first use (loadOnFirstUse.ts), so that a run pays
 * nothing for it and anything that does use it still works; tests/runtimeSettings.test.ts checks both.
 */
import { existsSync } from "fs";
import { dirname, join } from "path";

export interface UnusedModule {
  /** What it is, and what loads it. */
  what: string;
  filename: string;
  /** Whether it is an ES module compiled to CommonJS (see loadOnFirstUse). */
  esModule: boolean;
}

/** The compiler the SDK's `require("typescript")` finds; none where TypeScript is not installed. */
function typeScriptFrom(dir: string): string | undefined {
  try {
    return require.resolve("typescript", { paths: [dir] });
  } catch {
    // Not installed: the SDK falls back to the copy it ships.
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
      filename: typeScriptFrom(sdk),
      esModule: false,
    },
    {
      what: "the Automation API (pulumi.automation), which drives the Pulumi CLI from code, required by index.js",
      filename: join(sdk, "automation", "index.js"),
      esModule: true,
    },
    {
      what: "the provider server (pulumi.provider), for providers written in Node.js, required by index.js",
      filename: join(sdk, "provider", "index.js"),
      esModule: true,
    },
  ];
  return modules.filter((m): m is UnusedModule => m.filename !== undefined && existsSync(m.filename));
}
