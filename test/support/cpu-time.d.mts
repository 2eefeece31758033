/** The types of `cpu-time.mjs` (plain JavaScript, as `with-cpu-time.mjs` runs under node alone). */
export function cpuSeconds(pid: number | 'self', whose: 'own' | 'children'): number;
