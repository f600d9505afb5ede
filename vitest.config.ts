import { defineConfig } from 'vitest/config';

// Two projects: "unit" is everything that runs without a browser (pure modules, API, MCP, OAuth,
// reliability); "browser" drives Debian's Chromium through playwright-core and runs after it in CI.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: ['test/browser/**', 'node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // TEST_DATABASE=postgres: one PostgreSQL database per run for the files' schemas, dropped at the end.
          globalSetup: ['test/helpers/pg-global-setup.ts'],
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          pool: 'forks',
          fileParallelism: false,
          // TEST_DATABASE=postgres (npm run test:browser:pg): the pages on PostgreSQL, as the unit project.
          globalSetup: ['test/helpers/pg-global-setup.ts'],
        },
      },
    ],
  },
});
