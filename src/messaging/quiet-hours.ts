import type { Account } from '../accounts/schemas.js';
import { areaCodeOf, contactTimeZone, deferUntil, encodePlace, openingZone, recipientPlace, type RecipientPlace } from '../schedule/quiet-hours.js';
import type { Recipient } from './recipients.js';

/**
 * What quiet hours did to a send (issue #28), for the preview and the send's answer. Present when the account has
 * quiet hours on or the send was marked transactional.
 */
export interface QuietHoursSummary {
  /** The account's setting. */
  enabled: boolean;
  /** The send was marked transactional (one-time code, reply in an open conversation): exempt, goes out at once. */
  transactional: boolean;
  /** Recipients whose message waits for their window's next opening. */
  deferred: number;
  /** The earliest and the latest of those openings (UTC). */
  earliestOpening?: string;
  latestOpening?: string;
}

/** One recipient's due time after quiet hours: the planned time, or the opening of the window it waits for. */
export interface QuietDue {
  at: number;
  /** Set when deferred: the zone whose window opens then (of several, the one that held the message longest). */
  deferredIn: string | null;
  /** Where the recipient is, for the dispatcher's check at hand-over (messages.quiet_place); null: not subject. */
  place: string | null;
}

/**
 * Quiet hours for one send: decides each recipient's due time from the account's setting and the recipient's place
 * (src/schedule/quiet-hours.ts), and counts what it deferred. Places and openings are cached per send (a batch of
 * 10,000 numbers has few distinct places and few distinct slice times).
 */
export class QuietPlan {
  private readonly places = new Map<string, { place: RecipientPlace; encoded: string }>();
  private readonly openings = new Map<string, { at: number; zone: string } | null>();
  private deferred = 0;
  private earliest = Infinity;
  private latest = -Infinity;

  private constructor(
    private readonly account: Pick<Account, 'quietHours' | 'quietHoursWindows'>,
    private readonly transactional: boolean,
  ) {}

  /** null when neither the account's quiet hours nor the transactional mark has anything to say. */
  static for(account: Pick<Account, 'quietHours' | 'quietHoursWindows'>, transactional: boolean | undefined): QuietPlan | null {
    if (!account.quietHours && transactional !== true) return null;
    return new QuietPlan(account, transactional === true);
  }

  /** The send was marked transactional (messages.transactional): a consent review's pause leaves it to go. */
  get marksTransactional(): boolean {
    return this.transactional;
  }

  private get applies(): boolean {
    return this.account.quietHours && !this.transactional;
  }

  /** When the recipient's message may go out, given when it would. */
  due(r: Pick<Recipient, 'phone' | 'country' | 'contact'>, planned: number): QuietDue {
    if (!this.applies) return { at: planned, deferredIn: null, place: null };
    const fields = r.contact?.customFields ?? null;
    const own = contactTimeZone(fields);
    const area = areaCodeOf(r.phone, r.country)?.code ?? '';
    const key = `${r.country}|${area}|${own ?? ''}`;
    let known = this.places.get(key);
    if (!known) {
      const place = recipientPlace({ phone: r.phone, country: r.country, customFields: fields }, this.account.quietHoursWindows);
      known = { place, encoded: encodePlace(place, r.phone) };
      this.places.set(key, known);
    }
    const { place, encoded } = known;
    const openingKey = `${key}|${planned}`;
    let opening = this.openings.get(openingKey);
    if (opening === undefined) {
      const at = deferUntil(place, planned);
      opening = at === null ? null : { at, zone: openingZone(place, at) };
      this.openings.set(openingKey, opening);
    }
    if (opening === null) return { at: planned, deferredIn: null, place: encoded };
    this.deferred++;
    if (opening.at < this.earliest) this.earliest = opening.at;
    if (opening.at > this.latest) this.latest = opening.at;
    return { at: opening.at, deferredIn: opening.zone, place: encoded };
  }

  /**
   * The setting as it applies to this send, for the preview's fingerprint (merge-audit.ts): null when quiet hours do
   * not apply (off, or a transactional send), else the windows that decide.
   */
  fingerprintKey(): string | null {
    if (!this.applies) return null;
    const w = this.account.quietHoursWindows;
    return `on ${JSON.stringify(Object.keys(w).sort().map((k) => [k, w[k]]))}`;
  }

  summary(): QuietHoursSummary {
    return {
      enabled: this.account.quietHours,
      transactional: this.transactional,
      deferred: this.deferred,
      ...(this.deferred > 0 ? { earliestOpening: new Date(this.earliest).toISOString(), latestOpening: new Date(this.latest).toISOString() } : {}),
    };
  }
}
