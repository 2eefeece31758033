/**
 * Everything the process writes, captured while a chaos run lasts: the handlers' log lines (the
 * Powertools logger writes to process.stdout/stderr), the local stack's own complaints, and the
 * harness's progress lines. The audit scans all of it for secrets; the handlers' lines go to a log
 * file rather than the terminal, and the harness's lines go to both.
 */
import { writeFileSync } from 'node:fs';

export interface CapturedOutput {
  /** A progress line of the harness: shown, and captured with the rest. */
  say(line: string): void;
  /** All that was written, in order. */
  text(): string;
  lines(): number;
  /** Puts the streams back; writes what was captured to `file` if given. */
  restore(file?: string): void;
}

type Write = typeof process.stdout.write;

export function captureOutput(): CapturedOutput {
  const chunks: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
      return true;
    }) as Write;
  }
  let restored = false;
  return {
    say(line) {
      chunks.push(`${line}\n`);
      if (restored) process.stdout.write(`${line}\n`);
      else (originals[0] as Write).call(process.stdout, `${line}\n`);
    },
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '').length,
    restore(file) {
      if (restored) return;
      restored = true;
      streams.forEach((stream, index) => {
        stream.write = originals[index] as Write;
      });
      if (file) writeFileSync(file, chunks.join(''));
    },
  };
}
