/** IPv4 CIDR arithmetic on unsigned 32-bit integers, shared by validation and the subnet planner. */

export interface Cidr {
  /** Network address as an unsigned 32-bit integer. */
  base: number;
  prefix: number;
}

const OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const CIDR_TEXT = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}/(3[0-2]|[12]?\\d)$`);

/** Parses `a.b.c.d/n`; undefined when malformed. Host bits may be set (see `isCanonical`). */
export function parseCidr(text: string): Cidr | undefined {
  const match = CIDR_TEXT.exec(text);
  if (!match) return undefined;
  const base = ((Number(match[1]) << 24) | (Number(match[2]) << 16) | (Number(match[3]) << 8) | Number(match[4])) >>> 0;
  return { base, prefix: Number(match[5]) };
}

export const mask = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);

export const size = (c: Cidr): number => 2 ** (32 - c.prefix);

/** True when no host bits are set, i.e. `10.0.0.0/16` rather than `10.0.0.1/16`. */
export const isCanonical = (c: Cidr): boolean => (c.base & mask(c.prefix)) >>> 0 === c.base;

export function formatCidr(c: Cidr): string {
  const b = c.base;
  return `${b >>> 24}.${(b >>> 16) & 255}.${(b >>> 8) & 255}.${b & 255}/${c.prefix}`;
}

export const overlaps = (a: Cidr, b: Cidr): boolean => {
  const prefix = Math.min(a.prefix, b.prefix);
  return (a.base & mask(prefix)) >>> 0 === (b.base & mask(prefix)) >>> 0;
};

export const contains = (outer: Cidr, inner: Cidr): boolean =>
  inner.prefix >= outer.prefix && (inner.base & mask(outer.prefix)) >>> 0 === outer.base;

/** The `i`-th block of `prefix` inside `parent`. */
export function subnet(parent: Cidr, prefix: number, i: number): Cidr {
  return { base: (parent.base + i * 2 ** (32 - prefix)) >>> 0, prefix };
}
