import type { RawBuilder } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import { jsonObjectPatch, parseJson } from '../platform/db/sql.js';
import type { Actor } from '../platform/permissions.js';

/**
 * Which approval-bound credential last wrote a contact's merge values (issue #27): an assistant
 * holding such a credential may not send without a person's approval, but it may write contacts,
 * and what it writes into a name or a custom field reaches recipients through merge fields. The
 * preview warns about those values; this module keeps the record it reads (contacts.assistant_writes).
 *
 * Rules: a write records the fields whose value it changed when its actor is approval-bound, and
 * clears the entries of the fields it changed otherwise (a person, an automation key, a confirmed
 * opt-in). Writing the same value again changes nothing. The entry of a built-in contact field is
 * stored under its merge field name, that of a custom field under the field's id (a tag can be
 * renamed), and read back by tag (readAssistantWrites).
 */
export interface AssistantWrite {
  /** `key "Assistant"`, `app "Claude Desktop"`. */
  by: string;
  /** key_… or the OAuth client id. */
  credentialId: string;
  /** Epoch milliseconds. */
  at: number;
}

export type AssistantWrites = Record<string, AssistantWrite>;

/** Storage keys of the built-in contact merge fields, by the column they come from. */
export const CONTACT_COLUMN_FIELDS = {
  first_name: 'contact_first_name',
  last_name: 'contact_last_name',
  email: 'contact_email',
  phone: 'contact_phone',
} as const;

type Column = keyof typeof CONTACT_COLUMN_FIELDS;
const COLUMNS = Object.keys(CONTACT_COLUMN_FIELDS) as Column[];

/** The built-in fields whose column differs between `before` (null: no row yet) and `after`. */
export function changedContactFields(before: Readonly<Record<Column, string | null>> | null, after: Readonly<Record<Column, string | null>>): string[] {
  return COLUMNS.filter((c) => (after[c] ?? null) !== (before?.[c] ?? null)).map((c) => CONTACT_COLUMN_FIELDS[c]);
}

/** What one write does to the record: set entries (approval-bound actor) or remove them. */
export interface ProvenanceChange {
  set: AssistantWrites;
  remove: string[];
}

/** null when nothing changed. `actor` absent: a writer that is not approval-bound. */
export function provenanceChange(changed: readonly string[], actor: Actor | undefined, now: number): ProvenanceChange | null {
  if (changed.length === 0) return null;
  if (actor?.sendsNeedApproval !== true) return { set: {}, remove: [...new Set(changed)] };
  const entry: AssistantWrite = { by: actor.label, credentialId: actor.credentialId, at: now };
  return { set: Object.fromEntries(changed.map((k) => [k, entry])), remove: [] };
}

/** The value of assistant_writes in the UPDATE that writes the changed values (one statement, no read). */
export function assistantWritesAfter(db: DbOrTx, change: ProvenanceChange): RawBuilder<string> {
  return jsonObjectPatch(db, 'assistant_writes', change.set, change.remove);
}

/** assistant_writes of a new contact row. */
export function initialAssistantWrites(changed: readonly string[], actor: Actor | undefined, now: number): string {
  const change = provenanceChange(changed, actor, now);
  return JSON.stringify(change?.set ?? {});
}

/** Records a write made outside the contacts row (custom field values) on the contact, in the caller's transaction. */
export async function recordContactWrites(tx: DbOrTx, accountId: string, contactId: string, changed: readonly string[], actor: Actor | undefined, now: number): Promise<void> {
  const change = provenanceChange(changed, actor, now);
  if (!change) return;
  await tx.updateTable('contacts').set({ assistant_writes: assistantWritesAfter(tx, change) }).where('id', '=', contactId).where('account_id', '=', accountId).execute();
}

const isFieldKey = (key: string): boolean => key.startsWith('fld_');

/** Whether a stored record names custom fields (then readAssistantWrites needs their tags). */
export function namesCustomFields(stored: AssistantWrites): boolean {
  return Object.keys(stored).some(isFieldKey);
}

/**
 * The stored record (parsed, or JSON text) by merge field name as written in `{{…}}`: custom
 * fields by their current tag; entries of fields deleted since are dropped.
 */
export function readAssistantWrites(stored: AssistantWrites | string | null | undefined, tagOf: ReadonlyMap<string, string>): AssistantWrites {
  const record = typeof stored === 'string' || stored === null || stored === undefined ? parseJson<AssistantWrites>(stored, {}) : stored;
  const out: AssistantWrites = {};
  for (const [key, entry] of Object.entries(record)) {
    if (!isFieldKey(key)) out[key] = entry;
    else {
      const tag = tagOf.get(key);
      if (tag !== undefined) out[tag] = entry;
    }
  }
  return out;
}
