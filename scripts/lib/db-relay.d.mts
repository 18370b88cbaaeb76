export function startRelay(options?: {
  port?: number;
  host?: string;
}): Promise<{ address: string; stop(): Promise<void> }>;
