/** `npm run fuzz`: the fuzzing properties with many cases. FUZZ_RUNS (default 5000) validation cases, a tenth as plans. */
import { checkPlans, checkValidation } from "../tests/fuzz/properties";

async function main(): Promise<void> {
  const runs = Number(process.env.FUZZ_RUNS ?? 5000);
  const plans = Math.max(1, Math.floor(runs / 10));
  let start = Date.now();
  checkValidation(runs);
  console.log(
    `validation: ${runs} valid + ${runs} broken configs, no failure (${((Date.now() - start) / 1000).toFixed(1)} s)`,
  );
  start = Date.now();
  await checkPlans(plans);
  console.log(
    `plans: ${plans} valid + ${plans} broken configs, no failure (${((Date.now() - start) / 1000).toFixed(1)} s)`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
