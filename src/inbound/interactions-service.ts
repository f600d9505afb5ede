import { sql } from 'kysely';
import { toIso } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { sortKey } from '../platform/db/sort-key.js';
import type { InteractionsTable } from './tables.js';
import { AppError } from '../platform/errors.js';
import { keysetPage } from '../platform/pagination.js';
import { parseOrThrow } from '../platform/validation.js';
import { normalizePhone } from '../phone/index.js';
import { InteractionsQuerySchema, type Interaction, type InteractionList } from './schemas.js';

type Row = InteractionsTable & { first_name: string | null; last_name: string | null; contact_exists: string | null };

export function contactName(first: string | null, last: string | null): string | null {
  const name = [first, last].filter((x) => x && x.trim()).join(' ').trim();
  return name === '' ? null : name;
}

function toInteraction(r: Row): Interaction {
  return {
    id: r.id,
    type: r.type,
    actionType: r.action_type,
    campaignName: r.campaign_name,
    phoneNumber: `+${r.phone}`,
    contact: r.contact_exists ? { id: r.contact_exists, name: contactName(r.first_name, r.last_name) } : null,
    sendernameId: r.sender_id,
    messageId: r.message_id,
    inboundMessageId: r.inbound_message_id,
    buttonText: r.button_text,
    postbackData: r.postback_data,
    text: r.text,
    channel: r.channel,
    occurredAt: toIso(r.occurred_at)!,
  };
}

export interface InteractionsDeps {
  db: Db;
}

/**
 * Taps and replies for analytics (spec §4.7 list_rcs_interactions; REST GET {base_url}/interactions).
 * Newest first, keyset-paginated on (occurredAt, id); every filter is scoped to the account.
 */
export class InteractionsService {
  constructor(private readonly d: InteractionsDeps) {}

  async list(accountId: string, rawQuery: unknown): Promise<InteractionList> {
    const q = parseOrThrow(InteractionsQuerySchema, rawQuery ?? {}, 'Query');
    let qb = this.d.db
      .selectFrom('interactions')
      .leftJoin('contacts', (j) => j.onRef('contacts.id', '=', 'interactions.contact_id').onRef('contacts.account_id', '=', 'interactions.account_id'))
      .selectAll('interactions')
      .select(['contacts.first_name', 'contacts.last_name', 'contacts.id as contact_exists'])
      .where('interactions.account_id', '=', accountId);
    if (q.type !== undefined) qb = qb.where('interactions.type', '=', q.type);
    if (q.campaign !== undefined) qb = qb.where('interactions.campaign_name', '=', q.campaign);
    if (q.phone !== undefined) {
      const n = normalizePhone(q.phone);
      if (!n.ok) throw new AppError('VALIDATION_ERROR', `phone: ${n.message}`, { details: [{ path: 'phone', code: n.code, message: n.message }] });
      qb = qb.where('interactions.phone', '=', n.digits);
    }
    const start = q.startDate !== undefined ? Date.parse(q.startDate) : null;
    const end = q.endDate !== undefined ? Date.parse(q.endDate) : null;
    if (start !== null && end !== null && start > end) {
      throw new AppError('VALIDATION_ERROR', 'startDate must not be after endDate', { details: [{ path: 'startDate', code: 'invalid_range', message: 'startDate is after endDate' }] });
    }
    if (start !== null) qb = qb.where('interactions.occurred_at', '>=', start);
    if (end !== null) qb = qb.where('interactions.occurred_at', '<=', end);
    const page = await keysetPage(qb, {
      scope: { kind: 'interactions', sort: 'occurredAt', order: 'desc' },
      // With a number or a campaign: their rows through (account_id, phone | campaign_name, occurred_at), then sorted.
      sortExpr: sortKey('interactions.occurred_at', { afterFilter: q.phone !== undefined || q.campaign !== undefined }),
      idExpr: sql.ref('interactions.id'),
      limit: q.limit,
      cursor: q.cursor,
    });
    return { data: page.rows.map((r) => toInteraction(r)), pagination: page.pagination };
  }
}
