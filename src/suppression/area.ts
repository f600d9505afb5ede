import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { ConsentRecord } from './consent.js';
import { OptOutService, type OptOutDeps } from './opt-outs.js';
import { ConsentReviews } from './reviews.js';

export interface SuppressionAreaDeps {
  db: Db;
  clock: Clock;
  /** The number's contact, disabled by an opt-out and enabled again by an opt-in (the contacts area). */
  contacts: OptOutDeps['contacts'];
  /** Hears of each opt-out and opt-in inside its transaction (the inbound area's events). */
  events: OptOutDeps['events'];
  /** Cancels what is still queued or scheduled for the number (the messaging area). */
  cancelPending: OptOutDeps['cancelPending'];
}

/** What the suppression area offers: opt-outs, the append-only consent record and the consent review list. */
export interface SuppressionArea {
  optOuts: OptOutService;
  consent: ConsentRecord;
  consentReviews: ConsentReviews;
}

/** Builds the suppression area (src/context.ts calls one such factory per area). */
export function suppressionArea(d: SuppressionAreaDeps): SuppressionArea {
  const consent = new ConsentRecord({ db: d.db });
  const optOuts = new OptOutService({ db: d.db, contacts: d.contacts, events: d.events, cancelPending: d.cancelPending, consent });
  const consentReviews = new ConsentReviews({ db: d.db, clock: d.clock, optOuts, contacts: d.contacts, consent, events: d.events, cancelPending: d.cancelPending });
  return { consent, optOuts, consentReviews };
}
