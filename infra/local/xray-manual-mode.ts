/**
 * The local stack's processes load the X-Ray SDK (through Powertools Tracer) in its manual mode.
 * Outside Lambda the Tracer is off (`shared/tracing.ts`), yet the SDK's default, automatic mode
 * installs an async hook on every promise of the process as it loads (cls-hooked, destroy hooks
 * included): ten times the cost of a bare `await`, and in the bench's throughput run a sixth of the
 * stack's process. The trace's scope, log keys and headers are ours (an AsyncLocalStorage) and work
 * the same in either mode. In Lambda the SDK keeps its automatic mode: the Tracer needs it there.
 *
 * Imported first, before any module that loads the SDK (the SDK reads the variable as it loads).
 */
process.env.AWS_XRAY_MANUAL_MODE ??= 'true';
