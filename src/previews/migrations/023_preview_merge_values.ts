import type { Kysely } from 'kysely';

/**
 * Every distinct merged value of a preview, per merge field, with the recipients that get it and
 * what is risky about it (issue #27): the share page, the REST and MCP previews list them, so the
 * person approving sees every varying value instead of five samples. See src/previews/merge-report.ts
 * and docs/storage.md "previews". Null on previews made before this migration.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('previews').addColumn('merge_values', 'text').execute();
}
