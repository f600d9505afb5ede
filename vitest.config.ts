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
// - "browser": Debian's Chromium through playwright-core, two files at a time, run on its own in CI.
// `npm test` runs unit then system.
//
// isolate: false everywhere: a worker runs its files one after another in one module graph instead of a
// fresh process per file. Each file imported the whole server again (~400 of our modules through
// vite's transform, plus express, zod, the MCP SDK): 257 s of the SQLite suite's CPU went to imports,
// and the unit project took 184 s where its tests take 70 s of wall time on three workers; with
// isolate: false it takes 78 s (issue #31, bench/README.md "Session 15"). The price: module-level state
// (a helper's counter, a cache keyed by ids) carries from one file to the next, so a test must not
// assume it is the first in its process — ids and names it checks come from what it created.
// The browser project runs two files at once: Chromium waits on pages more than it computes (228 s
// one at a time, 165 s two at a time, 223 s three at a time on 2 cores).
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
          isolate: false,
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
          isolate: false,
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
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 2 },
          // TEST_DATABASE=postgres (npm run test:browser:pg): the pages on PostgreSQL, as the unit project.
          globalSetup: ['test/helpers/pg-global-setup.ts'],
        },
      },
    ],
  },
});
