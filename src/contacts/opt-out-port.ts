import type { OptOutContacts } from '../suppression/opt-outs.js';

/**
 * contacts/' side of an opt-out (suppression/opt-outs.ts OptOutContacts): an opt-out disables the
 * number's contact and an opt-in enables it again, in the suppression change's transaction. Here
 * because contacts/ is the one writer of the contacts table (issue #32).
 */
export const optOutContacts: OptOutContacts = {
  async find(tx, accountId, phone) {
    const row = await tx.selectFrom('contacts').select(['id', 'disabled', 'disabled_reason']).where('account_id', '=', accountId).where('phone', '=', phone).executeTakeFirst();
    return row && { id: row.id, disabled: row.disabled, disabledReason: row.disabled_reason };
  },
  async disableForOptOut(tx, contactId, reason, at) {
    await tx.updateTable('contacts').set({ disabled: 1, disabled_reason: reason, disabled_at: at, updated_at: at }).where('id', '=', contactId).execute();
  },
  async enableAfterOptIn(tx, contactId, at) {
    await tx.updateTable('contacts').set({ disabled: 0, disabled_reason: null, disabled_at: null, updated_at: at }).where('id', '=', contactId).execute();
  },
};
