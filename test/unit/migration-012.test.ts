import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/bootstrap/migrations.js';

const OLD_ALL = ['contacts:read', 'contacts:write', 'custom-fields:read', 'custom-fields:write', 'groups:read', 'groups:write', 'templates:read', 'templates:write', 'messages:read', 'messages:write'];

describe('migration 012: approval-bound keys and the management permissions', () => {
  it('keeps old keys sending directly, widens only the keys that held every old permission', async () => {
    const raw = new SQLite(':memory:');
     
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
    try {
      const names = Object.keys(migrations);
      const before012 = names[names.indexOf('012_approval_bound_keys') - 1]!;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo(before012)).error).toBeUndefined();

      await db.insertInto('accounts').values({ id: 'acc_1', name: 'A', created_at: 0 }).execute();
      const key = (id: string, permissions: string[]) => ({ id, account_id: 'acc_1', name: id, key_hash: `h_${id}`, display_prefix: 'rcsk_x', permissions: JSON.stringify(permissions), created_at: 0, last_used_at: null, revoked_at: null });
      await db.insertInto('api_keys').values([key('key_all', OLD_ALL), key('key_writer', ['messages:read', 'messages:write']), key('key_contacts', ['contacts:read', 'contacts:write'])]).execute();

      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const rows = await db.selectFrom('api_keys').select(['id', 'permissions', 'sends_need_approval']).orderBy('id').execute();
      const byId = Object.fromEntries(rows.map((r) => [r.id, { permissions: JSON.parse(r.permissions), sendsNeedApproval: r.sends_need_approval }]));
      expect(byId.key_all).toEqual({ permissions: [...OLD_ALL, 'webhooks:manage', 'forms:manage'], sendsNeedApproval: 0 });
      expect(byId.key_writer).toEqual({ permissions: ['messages:read', 'messages:write'], sendsNeedApproval: 0 });
      expect(byId.key_contacts).toEqual({ permissions: ['contacts:read', 'contacts:write'], sendsNeedApproval: 0 });
    } finally {
      await db.destroy();
    }
  });
});
