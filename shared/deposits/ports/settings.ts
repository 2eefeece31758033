/** The tuning of the workflow, from configuration. */
export interface DepositSettings {
  /** Waits longer than this become a schedule; shorter ones a delayed message (at most 15 min). */
  longWaitMs: number;
  /** How long a step may hold the user's connection for one provider call. */
  leaseMs: number;
  /** How long a step waits for a busy connection before it comes back later through its queue. */
  leasePatienceMs: number;
  /** How long a deposit waits for the caller's answer to the provider's question. */
  inputTtlMs: number;
  /** Retries of a read whose outcome was unknown, and of a step refused because the connection was busy. */
  maxRetries: number;
  /** The shortest wait after a transfer refused for a cool-down, whatever instant (or none, or a past one) the bank names. */
  coolDownRetryMs: number;
  /** A deposit that has not moved for this long is re-driven by the sweeper. */
  stallAfterMs: number;
  /** Re-drives by the sweeper of a deposit that does not move, before it fails. */
  maxRedrives: number;
  /**
   * The margin past `stallAfterMs` after which a claim to create a beneficiary whose holder has not
   * run is taken over (its holder died): stale `stallAfterMs + claimStaleMs` after it was last taken
   * or refreshed. Its holder refreshes it on every run of the step (each try of a busy connection,
   * each retry), and one that stopped moving (a lost message) is re-driven by the sweeper after
   * `stallAfterMs`: the margin covers the sweeper's period and that run, so a holder merely late is
   * never taken over (`steps/beneficiary-claim.ts`, `claimLifeMs`).
   */
  claimStaleMs: number;
  /** How long a connection's bank metadata is remembered (0: asked on every deposit). */
  bankMemoryMs: number;
  /** How long the bank metadata a payment source asked for is remembered: the deposits it prepares skip the ask. */
  sourceBankMemoryMs: number;
  /** Reads of a transfer operation (`reconcile`) before its outcome is given up as unknown. */
  maxPolls: number;
  /** The longest delay between two reads of a transfer operation (the delay doubles up to it). */
  pollCapMs: number;
}
