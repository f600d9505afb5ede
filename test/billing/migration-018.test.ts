import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/bootstrap/migrations.js';
import { expectLedgerBalanced } from './invariant.js';

describe('migration 018: the credit ledger', () => {
  it('opens the ledger of every existing account with its balance, so the invariant holds from the start', async () => {
    const raw = new SQLite(':memory:');
     
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
    try {
      const names = Object.keys(migrations);
      const before = names[names.indexOf('018_credit_ledger') - 1]!;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo(before)).error).toBeUndefined();
      await db
        .insertInto('accounts')
        .values([
          { id: 'acc_1', name: 'Rich', created_at: 0, credits_milli: 1_234_567 },
          { id: 'acc_2', name: 'Empty', created_at: 0, credits_milli: 0 },
        ])
        .execute();

      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const rows = await db.selectFrom('credit_ledger').selectAll().orderBy('account_id').execute();
      expect(rows.map((r) => [r.account_id, r.kind, r.amount_milli, r.message_id, r.job_id])).toEqual([
        ['acc_1', 'opening', 1_234_567, null, null],
        ['acc_2', 'opening', 0, null, null],
      ]);
      expect(rows.every((r) => /^led_[0-9A-Z]{26}$/.test(r.id) && r.reason.length > 0)).toBe(true);
      await expectLedgerBalanced(db, 'after migration 018');
    } finally {
      await db.destroy();
    }
  });
});
