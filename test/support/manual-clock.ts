/**
 * A clock the test moves by hand: `now()` stands still until the test (or a `sleep`) advances it,
 * so timeouts, expiries and cool-downs need no real time. Fits both the deposits' and the
 * sandbox's clock ports.
 */
export class ManualClock {
  constructor(private current = Date.UTC(2026, 10, 23, 12, 0, 0)) {}

  now(): number {
    return this.current;
  }

  /** A sleep moves the clock on at once: whatever waited, waited exactly that long. */
  async sleep(ms: number): Promise<void> {
    this.current += Math.max(0, ms);
  }

  advance(ms: number): this {
    this.current += ms;
    return this;
  }

  set(at: number): this {
    this.current = at;
    return this;
  }
}
