/**
 * Imported by the plan's entry point (scripts/plan.ts) after runtimeSettings.ts, before the SDKs load: what
 * `@pulumi/pulumi` loads to talk to the Pulumi engine, gRPC and its generated clients (unusedSdkModules.ts,
 * `previewUses`), loads on first use (loadOnFirstUse.ts). `pulumi preview` and `pulumi up` connect to the
 * engine through them; a plan runs the program against the SDK's mock monitor, in its own process, and loads
 * gRPC only on an error's path, for its status codes: about a twentieth of a dev plan's CPU saved.
 */
import { loadOnFirstUse } from "./loadOnFirstUse";
import { unusedSdkModules } from "./unusedSdkModules";

for (const { filename, previewUses, ...shape } of unusedSdkModules()) if (previewUses) loadOnFirstUse(filename, shape);
