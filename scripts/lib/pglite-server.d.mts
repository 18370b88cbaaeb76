export function startPglite(options?: {
  dataDir?: string;
  port?: number;
  host?: string;
}): Promise<{ url: string; threadId: number | null; stop(): Promise<void> }>;
