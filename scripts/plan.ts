/** `npm run plan`: see plan/cli.ts and the README. */
import "../runtimeSettings";
import "../planRuntimeSettings";
// Loaded rather than imported, so that a compiled program refusing to run (buildGuard.ts) is reported as
// any other failure is: one line, no stack trace.
import("../plan/cli")
  .then(({ main }) =>
    main(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }),
  )
  .then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`plan failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(3);
    },
  );
