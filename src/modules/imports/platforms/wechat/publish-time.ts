/** Unix seconds (as WeChat writes publish times) to ISO 8601, when plausible. */
export function isoFromUnixSeconds(value: string | undefined): string | undefined {
  if (!value || !/^\d{9,11}$/.test(value)) return undefined;
  const date = new Date(Number(value) * 1000);
  const year = date.getUTCFullYear();
  return year >= 2000 && year < 2100 ? date.toISOString() : undefined;
}
