/** `npm run restore-snapshot`: see cli/restore/restoreCommand.ts and docs/operations.md. */
import "../components/compileCache";
import { main } from "./restore/restoreCommand";
import { controlPlaneAws } from "./restore/controlPlaneAws";

const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t) };
main(process.argv.slice(2), io, controlPlaneAws).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`restore-snapshot failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
