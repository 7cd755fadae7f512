/**
 * Node 22's compile cache (`module.enableCompileCache`, Node 22.1 and later; an older Node goes without):
 * the SDKs' JavaScript is compiled once, then read back, from `NODE_COMPILE_CACHE` when set, else from Node's
 * default, `<os.tmpdir()>/node-compile-cache`. Imported first by the entry points, before the SDKs load.
 */
import * as nodeModule from "module";

(nodeModule as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache?.();
