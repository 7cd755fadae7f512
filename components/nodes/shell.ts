/** Quoting for values put into shell scripts: single quotes, with embedded ones closed and escaped. */
export function shellQuote(value: string | number | boolean): string {
  return `'${String(value).replace(/'/g, `'\\''`)}'`;
}
