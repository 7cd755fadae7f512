/** fast-check generators of stack configs: valid ones, and arbitrarily broken ones. */
import fc from "fast-check";
import { ciliumOptions } from "../../catalogs/ciliumOptions";
import { CILIUM_LINES, newestRelease, parseSemver } from "../../catalogs/ciliumVersions";
import { newestPatch } from "../../catalogs/kubernetesReleases";
import { recordedZones } from "../../catalogs/availabilityZones";
import { managedCiliumKeys } from "../../components/cilium/configMap";

const MANAGED_CILIUM_KEYS = managedCiliumKeys();
import { CILIUM_FEATURES } from "../../components/cilium/features/ciliumFeatures";
import { merge } from "../fixtures";

type Raw = Record<string, unknown>;

export const REGION = "us-east-1";
const ZONES = recordedZones(REGION);
/** Options every shipped line reads that the program does not manage. */
const EXTRA_OPTIONS = ciliumOptions(CILIUM_LINES[0].line).filter(
  (option) => !(option in MANAGED_CILIUM_KEYS) && CILIUM_LINES.every((l) => ciliumOptions(l.line).includes(option)),
);
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);
const tagText = fc.stringMatching(/^[A-Za-z0-9 _.:/=+@-]{0,20}$/);

/** Any string at all: quotes, newlines, `$()`, YAML specials, unicode. */
export const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    '"; rm -rf / #',
    "$(reboot)",
    "`id`",
    "a\nb: c",
    "'x'\"y\"",
    "- [x]\n{y: z}",
    "\\",
    "${HOME}",
    "*&anchor",
    "|",
  ),
);

const ipamArb = fc.constantFrom("", "crd", "eni");

/** Every Cilium feature's configs that turn it on (components/cilium/features/), any of them on any config. */
const FEATURE_CASES = CILIUM_FEATURES.flatMap((feature) => Object.values(feature.cases.on));

export const validConfig: fc.Arbitrary<Raw> = fc
  .record({
    ipam: ipamArb,
    zoneCount: fc.integer({ min: 1, max: ZONES.length }),
    prefix: fc.integer({ min: 16, max: 20 }),
    second: fc.integer({ min: 0, max: 15 }),
    controlPlaneHa: fc.boolean(),
    natSingle: fc.boolean(),
    publicTopology: fc.boolean(),
    nodePort: fc.boolean(),
    bpfMasquerade: fc.boolean(),
    tunnel: fc.constantFrom("vxlan", "geneve"),
    line: fc.constantFrom(...CILIUM_LINES),
    patch: fc.integer({ min: 0, max: 20 }),
    groups: fc.uniqueArray(label, { minLength: 1, maxLength: 4 }),
    sizes: fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 6 })), {
      minLength: 4,
      maxLength: 4,
    }),
    labels: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9._/-]{0,15}$/), tagText, { maxKeys: 3 }),
    extra: fc.dictionary(fc.constantFrom(...EXTRA_OPTIONS), hostileString, { maxKeys: 3 }),
    access: fc.uniqueArray(fc.constantFrom("0.0.0.0/0", "203.0.113.0/24", "198.51.100.7/32", "192.0.2.0/28"), {
      minLength: 1,
      maxLength: 3,
    }),
    loadBalancer: fc.constantFrom("public", "internal"),
    features: fc.subarray(FEATURE_CASES),
  })
  .map((c) => {
    const eni = c.ipam === "eni";
    const zoneCount = c.controlPlaneHa ? Math.max(3, c.zoneCount) : c.zoneCount;
    const minor =
      c.line.kubernetes.oldest + ((c.patch % (c.line.kubernetes.newest - c.line.kubernetes.oldest + 1)) | 0);
    const config = {
      clusterName: `${c.groups[0]}.k8s.local`,
      // A recorded release: nodes could not install another.
      kubernetesVersion: `1.${minor}.${c.patch % (Number(newestPatch(`1.${minor}`)!.version.split(".")[2]) + 1)}`,
      topology: !eni && c.publicTopology ? "public" : "private",
      network: {
        // ENI pods take VPC addresses: keep the VPC large enough for the generated node groups.
        cidr: `10.${c.second * 16}.0.0/${eni ? Math.min(c.prefix, 17) : c.prefix}`,
        availabilityZones: ZONES.slice(0, zoneCount),
        natGateways: c.natSingle ? "single" : "perZone",
      },
      networking: {
        cilium: {
          version: `v${c.line.line}.${c.patch % (parseSemver(newestRelease(c.line).version.slice(1))!.patch + 1)}`,
          ipam: c.ipam,
          disableMasquerade: eni,
          ...(eni ? {} : { tunnel: c.tunnel }),
          enableNodePort: c.nodePort,
          // eBPF masquerading needs Cilium's NodePort and masquerading on.
          bpfMasquerade: c.bpfMasquerade && c.nodePort && !eni,
          extraConfig: c.extra,
        },
      },
      kubeProxy: { enabled: !c.nodePort },
      api: { loadBalancer: c.loadBalancer, access: c.access },
      // One control-plane node is valid only with its loss accepted.
      controlPlane: c.controlPlaneHa ? { count: 3 } : { count: 1, acceptSingleNodeLoss: true },
      // The first group keeps a node: with every group at 0 no workload would run (validation refuses it).
      nodeGroups: c.groups.map((name, i) => {
        const minSize = i === 0 ? Math.max(1, c.sizes[i][0]) : c.sizes[i][0];
        return { name, minSize, maxSize: minSize + c.sizes[i][1] };
      }),
      cloudLabels: c.labels,
    } as Raw;
    // A feature's case sets every key it needs (its own rules' too), over what was drawn above.
    return c.features.reduce((acc, edit) => merge(acc, edit), config);
  });

/** A path into a config, as a list of keys and indexes. */
const pathArb = fc.array(
  fc.oneof(
    fc.constantFrom(
      "networking",
      "cilium",
      "ipam",
      "network",
      "cidr",
      "nodeGroups",
      "controlPlane",
      "count",
      "api",
      "access",
      "cloudLabels",
      "cloudProvider",
      "tunnel",
    ),
    fc.string({ maxLength: 8 }),
    fc.nat({ max: 3 }),
  ),
  { minLength: 1, maxLength: 5 },
);

const junk = fc.oneof(
  fc.anything({ maxDepth: 4, maxKeys: 5 }),
  hostileString,
  fc.array(fc.anything({ maxDepth: 1 }), { minLength: 30, maxLength: 60 }),
  fc.integer(),
  fc.double(),
  fc.constant(null),
);

function setAt(target: Raw, path: (string | number)[], value: unknown): Raw {
  const root = structuredClone(target);
  let node: Record<string | number, unknown> = root;
  // A named key on a list (`length`!) or `__proto__` would not be config a user could write.
  const settable = (n: object, key: string | number) =>
    key !== "__proto__" && !(Array.isArray(n) && typeof key === "string");
  for (const key of path.slice(0, -1)) {
    if (!settable(node, key)) return root;
    if (typeof node[key] !== "object" || node[key] === null) node[key] = typeof key === "number" ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (settable(node, last)) node[last] = value;
  return root;
}

/** A valid config with one to four things broken anywhere: wrong types, unknown keys, junk, huge lists. */
export const brokenConfig: fc.Arbitrary<Raw> = fc
  .tuple(validConfig, fc.array(fc.tuple(pathArb, junk), { minLength: 1, maxLength: 4 }))
  .map(([config, edits]) => edits.reduce((c, [path, value]) => setAt(c, path, value), config));
