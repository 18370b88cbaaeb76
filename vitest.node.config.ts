/**
 * Node-side tests (test-node/): what runs outside the Worker, such as the migrations as a
 * deployment runs them, each against an embedded PGlite of its own.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test-node/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
  },
});
