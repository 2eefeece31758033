/** The spec's periods (`{ value, unit }`, e.g. `beneficiaryCoolDownPeriod`) in milliseconds. */
const millisecondsPerUnit: Record<string, number> = {
  secs: 1_000,
  mins: 60_000,
  hrs: 3_600_000,
  days: 86_400_000,
};

/** Unknown units count as hours, the unit the spec shows. */
export function periodMs(period: { value: number; unit: string }): number {
  return Math.round(period.value * (millisecondsPerUnit[period.unit] ?? 3_600_000));
}
