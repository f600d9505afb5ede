import { defineConfig } from 'vitest/config';

/**
 * Files that start child processes (the real entry point, the CLI, several instances on one
 * PostgreSQL, nginx) or kill them: they time what processes do, so they run one at a time after
 * the rest, never next to other files competing for the two cores (issue #31).
 */
const SYSTEM_FILES = [
  'test/reliability/**/*.test.ts',
  'test/deploy/**/*.test.ts',
  'test/db/copy-to-postgres.test.ts',
  // Creates 1,500 tables and drops schemas in a loop: it would slow and race the other files' migrations.
  'test/db/migrate-concurrent-drop.test.ts',
  'test/db/budget-instances.test.ts',
  'test/db/change-feed.test.ts',
  'test/db/locks.test.ts',
  'test/db/rate-limit-store.test.ts',
  'test/db/shared-caches.test.ts',
  'test/db/shared-forms.test.ts',
  'test/db/shared-limits.test.ts',
  'test/api/approval/revocation.test.ts',
  'test/billing/ledger-lock-order.test.ts',
];

// Three projects:
// - "unit": everything that runs in this process's servers (pure modules, API, MCP, OAuth). Its files
//   mostly wait on sockets and the database, so three run at once on two cores (vitest's default on a
//   2-core machine is one).
// - "system": SYSTEM_FILES, one at a time, after "unit" (groupOrder).
// - "browser": Debian's Chromium through playwright-core, run on its own in CI.
// `npm test` runs unit then system.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: ['test/browser/**', 'node_modules/**', ...SYSTEM_FILES],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
          // TEST_DATABASE=postgres: one PostgreSQL database per run for the files' schemas, dropped at the end.
          globalSetup: ['test/helpers/pg-global-setup.ts'],
        },
      },
      {
        test: {
          name: 'system',
          include: SYSTEM_FILES,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          fileParallelism: false,
          sequence: { groupOrder: 1 },
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
          sequence: { groupOrder: 2 },
          // TEST_DATABASE=postgres (npm run test:browser:pg): the pages on PostgreSQL, as the unit project.
          globalSetup: ['test/helpers/pg-global-setup.ts'],
        },
      },
    ],
  },
});
