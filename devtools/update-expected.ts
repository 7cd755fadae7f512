/** `npm run update-expected`: rewrites tests/golden/<stack>/ from the current code (the seed's hack/update-expected.sh). */
import { join } from "path";
import { writeOut } from "../cli/plan/cli";
import { examples, GOLDEN_DIR } from "../cli/plan/examples";
import { renderStackFiles } from "../cli/plan/render";

async function main(): Promise<void> {
  for (const example of examples()) {
    const files = await renderStackFiles(example.file, example.name);
    writeOut(join(GOLDEN_DIR, example.name), files);
    console.log(`tests/golden/${example.name}: ${files.size} files`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
