import type { Db } from '../platform/db/database.js';
import { AppError } from '../platform/errors.js';
import { parseCarrierConfig, SenderCarrierConfigSchema, type SenderCarrierConfig } from '../carriers/sender-config.js';

/*
 * Writing a sender's carrier override (senders.carrier_config) belongs to senders/, the one writer
 * of the senders table (issue #32); carriers/sender-config.ts defines the override and reads it.
 */

/**
 * Sets (or, with null parts, clears) one sender's override; used by the admin CLI. Validation
 * happens here so a typo never reaches a running server. Returns the stored override.
 */
export async function setSenderCarrierConfig(db: Db, senderId: string, change: { rbm?: SenderCarrierConfig['rbm'] | null; smpp?: SenderCarrierConfig['smpp'] | null }): Promise<SenderCarrierConfig> {
  const row = await db.selectFrom('senders').select(['id', 'type', 'carrier_config']).where('id', '=', senderId).executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND', `Sender ${senderId} not found`);
  const next: Record<string, unknown> = { ...parseCarrierConfig(row.carrier_config) };
  for (const key of ['rbm', 'smpp'] as const) {
    if (change[key] === null) delete next[key];
    else if (change[key] !== undefined) next[key] = change[key];
  }
  if (next.rbm !== undefined && row.type !== 'RCS') throw new AppError('VALIDATION_ERROR', 'An RBM agent can only be set on an RCS sender');
  if (next.smpp !== undefined && row.type !== 'SMS') throw new AppError('VALIDATION_ERROR', 'An SMPP connection can only be set on an SMS sender');
  const parsed = SenderCarrierConfigSchema.safeParse(next);
  if (!parsed.success) {
    throw new AppError(
      'VALIDATION_ERROR',
      'Invalid carrier override',
      { details: parsed.error.issues.map((i) => ({ path: i.path.join('.'), code: 'invalid', message: i.message })) },
    );
  }
  const empty = parsed.data.rbm === undefined && parsed.data.smpp === undefined;
  await db
    .updateTable('senders')
    .set({ carrier_config: empty ? null : JSON.stringify(parsed.data) })
    .where('id', '=', senderId)
    .execute();
  return parsed.data;
}
