// `npm run db:migrate`: applies drizzle/ migrations to DATABASE_URL (production: the Neon
// connection string of the owner role).
import { runMigrations } from './lib/migrate.mjs';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set');
  process.exit(1);
}
await runMigrations(url);
console.log('migrations applied');
