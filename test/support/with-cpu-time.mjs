/**
 * `node with-cpu-time.mjs <nice> <command> [args...]`: runs the command at that niceness (0 to 19,
 * inherited by every process it starts) and, when it ends, writes on fd 3 the CPU time in seconds
 * (user and system) that it and the processes it waited for took, then exits with its code. For
 * `test/run.ts`, whose phases run side by side: its own children's times (Linux's `cutime`) would
 * mix theirs.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeSync } from 'node:fs';
import { setPriority } from 'node:os';

const [niceness, file, ...args] = process.argv.slice(2);
setPriority(Number(niceness));

/** This process's children's CPU time, in seconds (Linux: the 16th and 17th fields of its stat). */
function childrenCpuSeconds() {
  try {
    // The fields after the command's closing parenthesis: cutime and cstime are the 14th and 15th, in ticks.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

const child = spawn(file, args, { stdio: 'inherit' });
child.once('error', (error) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
child.once('close', (code) => {
  try {
    writeSync(3, String(childrenCpuSeconds()));
  } catch {
    // Run without fd 3: nothing to report to.
  }
  process.exit(code ?? 1);
});
