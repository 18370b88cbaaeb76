export interface CpuParts {
  workers: number;
  wrangler: number;
  database?: number;
  bench: number;
}
export function descendants(root: number): number[];
export function isWorkersRuntime(pid: number): boolean;
export function cpuReader(options: {
  wranglerPid: number;
  databaseThreadId?: number | null;
  postgresPid?: number | null;
}): (() => CpuParts) | null;
export function perRequest(before: CpuParts | null, after: CpuParts | null, requests: number): CpuParts | null;
