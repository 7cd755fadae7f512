/** `npm run plan`: see cli/plan/cli.ts and the README. */
import "../components/compileCache";
import { main } from "./plan/cli";

main(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // Config and usage errors are reported by main; what reaches here is a bug, shown where it came from.
    process.stderr.write(`plan failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(3);
  },
);
