import { jsonList, jsonObjectAgg, parseJson, selectRowsViaJson } from '../platform/db/sql.js';
import type { Clock } from '../platform/clock.js';
import type { DbOrTx } from '../platform/db/database.js';
import { namesCustomFields, readAssistantWrites, type AssistantWrites } from './provenance.js';
import { newContactRow } from './service.js';

/** What the messaging engine needs of a contact to address and merge a message. */
export interface RecipientContact {
  id: string;
  /** Digits with country code. */
  phone: string;
  /** ISO 3166-1 alpha-2 country of the number, as found when the contact was saved. */
  country: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  disabled: boolean;
  /** Values by custom-field tag. */
  customFields: Record<string, string>;
  /**
   * Merge values an approval-bound credential (an assistant) wrote last, by merge field name
   * (`contact_first_name`, … and custom field tags as in `{{tag}}`): who (`key "Assistant"`,
   * `app "Claude Desktop"`), which credential (key_… or OAuth client id) and when (epoch ms).
   * Empty when none (src/contacts/provenance.ts).
   */
  assistantWrites: AssistantWrites;
}

const NO_TAGS: ReadonlyMap<string, string> = new Map();

// SQLite allows 32,766 bound parameters per statement; stay well below it.
const CHUNK = 900;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One contact as findByPhones reads it: id, phone, country, first, last, email, disabled, assistant writes, fields. */
type ContactTuple = [string, string, string, string | null, string | null, string | null, number, AssistantWrites | null, Record<string, string> | null];
const CONTACT_FIELDS = ['id', 'phone', 'country', 'first_name', 'last_name', 'email', 'disabled', 'assistant_writes'] as const;
const CONTACT_COLUMNS = [...CONTACT_FIELDS, 'fields'] as const;
const JSON_COLUMNS: ReadonlySet<string> = new Set(['assistant_writes', 'fields']);

export interface ContactDirectoryDeps {
  /** Stamps the contacts it creates; the database is the caller's transaction. */
  clock: Clock;
}

/**
 * Bulk contact access for sends: look-ups by phone for up to 10,000 recipients in a few queries,
 * and auto-creation of contacts for unknown numbers (spec §2.13 rule 3). Countries are checked by
 * the caller against the price list before anything is created here.
 */
export class ContactDirectory {
  constructor(private readonly d: ContactDirectoryDeps) {}

  /**
   * Contacts of these phones with their custom fields, in one statement for any number of phones:
   * the list travels as one JSON parameter (jsonList) instead of thousands of bound values, each
   * contact's custom fields come back as one JSON object, and the rows as one JSON array
   * (selectRowsViaJson: a third of the cost of 10,000 driver rows).
   */
  async findByPhones(tx: DbOrTx, accountId: string, phones: readonly string[]): Promise<Map<string, RecipientContact>> {
    const result = new Map<string, RecipientContact>();
    if (phones.length === 0) return result;
    const query = tx
      .selectFrom('contacts as c')
      .select(CONTACT_FIELDS)
      .select((eb) =>
        eb
          .selectFrom('contact_field_values as v')
          .innerJoin('custom_fields as f', 'f.id', 'v.field_id')
          .select(jsonObjectAgg(tx, 'f.tag', 'v.value').as('fields'))
          .whereRef('v.contact_id', '=', 'c.id')
          .as('fields'),
      )
      .where('c.account_id', '=', accountId)
      .where('c.phone', 'in', jsonList(tx, phones));
    const rows = await selectRowsViaJson<ContactTuple>(tx, query, CONTACT_COLUMNS, JSON_COLUMNS);
    // Custom fields are recorded by id (tags can be renamed): their tags are read once, and only when needed.
    const tags = rows.some((r) => r[7] !== null && namesCustomFields(r[7])) ? await this.tagsById(tx, accountId) : NO_TAGS;
    for (const [id, phone, country, firstName, lastName, email, disabled, writes, fields] of rows) {
      result.set(phone, { id, phone, country, firstName, lastName, email, disabled: disabled === 1, customFields: fields ?? {}, assistantWrites: readAssistantWrites(writes, tags) });
    }
    return result;
  }

  private async tagsById(tx: DbOrTx, accountId: string): Promise<Map<string, string>> {
    const rows = await tx.selectFrom('custom_fields').select(['id', 'tag']).where('account_id', '=', accountId).execute();
    return new Map(rows.map((r) => [r.id, r.tag]));
  }

  async findById(tx: DbOrTx, accountId: string, id: string): Promise<RecipientContact | null> {
    const r = await tx
      .selectFrom('contacts')
      .select(['id', 'phone', 'country', 'first_name', 'last_name', 'email', 'disabled', 'assistant_writes'])
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!r) return null;
    const writes = parseJson<AssistantWrites>(r.assistant_writes, {});
    const tags = namesCustomFields(writes) ? await this.tagsById(tx, accountId) : NO_TAGS;
    const contact: RecipientContact = {
      id: r.id,
      phone: r.phone,
      country: r.country,
      firstName: r.first_name,
      lastName: r.last_name,
      email: r.email,
      disabled: r.disabled === 1,
      customFields: {},
      assistantWrites: readAssistantWrites(writes, tags),
    };
    await this.attachCustomFields(tx, accountId, [contact]);
    return contact;
  }

  /** Creates bare contacts (phone only) for numbers that have none; returns them by phone. */
  async createMany(tx: DbOrTx, accountId: string, entries: readonly { phone: string; country: string }[]): Promise<Map<string, RecipientContact>> {
    const now = this.d.clock.now();
    const result = new Map<string, RecipientContact>();
    for (const part of chunks(entries, 200)) {
      const rows = part.map((e) => newContactRow(accountId, e, now));
      await tx.insertInto('contacts').values(rows).onConflict((oc) => oc.columns(['account_id', 'phone']).doNothing()).execute();
    }
    // Read back: a concurrent send may have created some of them first.
    const found = await this.findByPhones(tx, accountId, entries.map((e) => e.phone));
    for (const e of entries) {
      const c = found.get(e.phone);
      if (c) result.set(e.phone, c);
    }
    return result;
  }

  async customFieldTags(tx: DbOrTx, accountId: string): Promise<Set<string>> {
    const rows = await tx.selectFrom('custom_fields').select('tag').where('account_id', '=', accountId).execute();
    return new Set(rows.map((r) => r.tag));
  }

  private async attachCustomFields(tx: DbOrTx, accountId: string, contacts: RecipientContact[]): Promise<void> {
    if (contacts.length === 0) return;
    const byId = new Map(contacts.map((c) => [c.id, c]));
    for (const part of chunks([...byId.keys()])) {
      const rows = await tx
        .selectFrom('contact_field_values')
        .innerJoin('custom_fields', 'custom_fields.id', 'contact_field_values.field_id')
        .select(['contact_field_values.contact_id', 'custom_fields.tag', 'contact_field_values.value'])
        .where('contact_field_values.account_id', '=', accountId)
        .where('contact_field_values.contact_id', 'in', part)
        .execute();
      for (const r of rows) {
        const c = byId.get(r.contact_id);
        if (c) c.customFields[r.tag] = r.value;
      }
    }
  }
}
