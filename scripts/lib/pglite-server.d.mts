export function startPglite(options?: {
  dataDir?: string;
  port?: number;
  host?: string;
}): Promise<{ url: string; stop(): Promise<void> }>;
