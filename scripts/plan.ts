/** `npm run plan`: see plan/cli.ts and the README. */
import { main } from "../plan/cli";

main(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`plan failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(3);
  },
);
