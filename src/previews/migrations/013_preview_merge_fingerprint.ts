import type { Kysely } from 'kysely';

/**
 * What each recipient of a preview got merged in (src/messaging/merge-audit.ts), so the send of
 * the preview can refuse when any merged value changed since a person approved it
 * (PREVIEW_STALE). Compact JSON: one short hash per recipient plus field tags; see docs/storage.md
 * "previews.merge_fingerprint". Null only for previews made before this column existed, which
 * are refused as stale.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('previews').addColumn('merge_fingerprint', 'text').execute();
}
