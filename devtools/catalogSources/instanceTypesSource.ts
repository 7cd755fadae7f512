/**
 * EC2 instance types' facts as EC2's DescribeInstanceTypes reports them: moto keeps a copy of its answer for
 * every type (`moto/ec2/resources/instance_types.json.gz`), in the moto the box's emulator pins
 * (tests/box/aws/requirements.txt), read through the python3 that has it installed.
 */
import { execFileSync } from "child_process";
import { readFileSync } from "fs";
import { join } from "path";
import { gunzipSync } from "zlib";

/** One type: vCPUs, memory (MiB), network interfaces, IPv4 addresses per interface, on Dedicated Hosts only. */
export type InstanceTypeFact = [vcpus: number, memoryMiB: number, enis: number, ipv4PerEni: number, hostOnly: 0 | 1];

interface DescribedType {
  InstanceType: string;
  VCpuInfo: { DefaultVCpus: number };
  MemoryInfo: { SizeInMiB: number };
  NetworkInfo: { MaximumNetworkInterfaces: number; Ipv4AddressesPerInterface: number };
  ProcessorInfo: { SupportedArchitectures: string[] };
}

/** Every type moto records, by name, and where they were read (moto's version). */
export function describedInstanceTypes(): { facts: Record<string, InstanceTypeFact>; source: string } {
  const [dir, version] = execFileSync(
    "python3",
    ["-c", "import moto, os; print(os.path.dirname(moto.__file__)); print(moto.__version__)"],
    { encoding: "utf8" },
  )
    .trim()
    .split("\n");
  const file = join(dir, "ec2", "resources", "instance_types.json.gz");
  const described = JSON.parse(gunzipSync(readFileSync(file)).toString()) as Record<string, DescribedType>;
  const facts = Object.fromEntries(
    Object.values(described).map((t): [string, InstanceTypeFact] => [
      t.InstanceType,
      [
        t.VCpuInfo.DefaultVCpus,
        t.MemoryInfo.SizeInMiB,
        t.NetworkInfo.MaximumNetworkInterfaces,
        t.NetworkInfo.Ipv4AddressesPerInterface,
        // Mac instances (x86_64_mac, arm64_mac) run only on Dedicated Hosts (the EC2 user guide, "Amazon EC2 Mac instances").
        t.ProcessorInfo.SupportedArchitectures.some((a) => a.endsWith("_mac")) ? 1 : 0,
      ],
    ]),
  );
  return { facts, source: `moto ${version}, ec2/resources/instance_types.json.gz` };
}
