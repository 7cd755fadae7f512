/**
 * A path the person typed, from where they typed it: `npm run` starts a script in the package's directory,
 * and says where it was run from in INIT_CWD (npm's run-script docs); run directly, the process's own
 * directory is theirs.
 */
import { resolve } from "path";

export const fromCaller = (path: string): string => resolve(process.env.INIT_CWD ?? process.cwd(), path);
