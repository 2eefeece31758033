/**
 * CPU time from Linux's `/proc/<pid>/stat`, in seconds (user and system; 0 where there is none):
 * a process's own (`utime`, `stime`), or that of the children it has waited for (`cutime`, `cstime`).
 */
import { readFileSync } from 'node:fs';

/** @param {number | 'self'} pid @param {'own' | 'children'} whose @returns {number} */
export function cpuSeconds(pid, whose) {
  try {
    // The fields after the command's closing parenthesis, from the 3rd: utime is the 14th, cutime the 16th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const first = whose === 'own' ? 11 : 13;
    return (Number(fields[first]) + Number(fields[first + 1])) / 100 || 0;
  } catch {
    return 0;
  }
}
