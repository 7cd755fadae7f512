/** The AWS emulator's Python packages (tests/box/aws/requirements.txt): moto, and the AWS CLI that calls it. */
import { spawnSync } from "child_process";

/** Why they cannot be used here, naming how to install them, or undefined. */
export function missingEmulatorPackages(): string | undefined {
  const probe = spawnSync("python3", ["-c", "import moto, awscli"], { encoding: "utf8" });
  return probe.status === 0
    ? undefined
    : "moto and the AWS CLI are not installed: python3 -m pip install -r tests/box/aws/requirements.txt";
}
