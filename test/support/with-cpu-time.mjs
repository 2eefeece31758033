/**
 * `node with-cpu-time.mjs <nice> <command> [args...]`: runs the command at that niceness (0 to 19,
 * inherited by every process it starts) and, when it ends, writes on fd 3 the CPU time in seconds
 * (user and system) that it and the processes it waited for took, then exits with its code. For
 * `test/run.ts`, whose phases run side by side: its own children's times (Linux's `cutime`) would
 * mix theirs.
 */
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { setPriority } from 'node:os';
import { cpuSeconds } from './cpu-time.mjs';

const [niceness, file, ...args] = process.argv.slice(2);
setPriority(Number(niceness));

const child = spawn(file, args, { stdio: 'inherit' });
child.once('error', (error) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
child.once('close', (code) => {
  try {
    writeSync(3, String(cpuSeconds('self', 'children')));
  } catch {
    // Run without fd 3: nothing to report to.
  }
  process.exit(code ?? 1);
});
