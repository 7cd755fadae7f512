/** `npm run validate-cluster`: see cli/clusterCheck/command.ts and docs/operations.md. */
import "../components/compileCache";
import { main } from "./clusterCheck/command";

main(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`validate-cluster failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(3);
  },
);
