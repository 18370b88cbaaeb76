export function runMigrations(databaseUrl: string): Promise<void>;
