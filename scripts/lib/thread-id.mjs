// The calling thread's Linux id (its entry in /proc/<pid>/task), from /proc/thread-self; null off
// Linux. The PGlite thread reports its own, so the bench can read that thread's CPU time.
import { readlinkSync } from 'node:fs';

export function linuxThreadId() {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').at(-1)) || null;
  } catch {
    return null;
  }
}
