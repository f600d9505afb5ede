/**
 * What a message costs — the one answer (issue #18). Pure: every place that asks (the send's
 * accept, the dispatcher's outcome, the conversation billing preview, previews through the send's
 * dry run) calls priceMessage with the facts it has, and nothing else computes a price.
 */
import type { PriceEntry } from './default-prices.js';

/** Price list of one account: ISO country → prices in 1/1000 credit (RCS per message, SMS per segment). */
export type PriceList = ReadonlyMap<string, PriceEntry>;

/**
 * - `quoted`: at accept time or in a preview — what is charged up front.
 * - `sent`: the carrier took it on `channel` (an RCS message that went out by its SMS fallback is
 *   asked again with channel SMS and its fallback's segments).
 * - `failed`: it never left; failed messages are not charged.
 */
export type PriceOutcome = 'quoted' | 'sent' | 'failed';

export interface PriceQuestion {
  channel: 'RCS' | 'SMS';
  /** ISO 3166-1 alpha-2 of the recipient. */
  country: string;
  /** SMS segments after merging (spec §2.13 rule 5); ignored for RCS. */
  segments: number;
  /** A test sender to one of its test phones (isTestTraffic); always free. */
  testTraffic: boolean;
  /** An RCS conversation window of the sender is open at send time (spec §3.3); windows cover RCS only. */
  inOpenWindow: boolean;
  outcome: PriceOutcome;
}

export type PriceBasis = 'failed' | 'test_traffic' | 'conversation_window' | 'rcs_message' | 'sms_segments' | 'no_price';

export interface PriceAnswer {
  /** 1/1000 credits; null when the country has no price for the channel (basis 'no_price'). */
  milli: number | null;
  basis: PriceBasis;
}

/** The price of one message. Order matters: a failed message is free before anything else, then test traffic, then an open window. */
export function priceMessage(prices: PriceList, q: PriceQuestion): PriceAnswer {
  if (q.outcome === 'failed') return { milli: 0, basis: 'failed' };
  if (q.testTraffic) return { milli: 0, basis: 'test_traffic' };
  const entry = prices.get(q.country);
  if (q.channel === 'RCS') {
    if (q.inOpenWindow) return { milli: 0, basis: 'conversation_window' };
    return entry === undefined ? { milli: null, basis: 'no_price' } : { milli: entry.rcs, basis: 'rcs_message' };
  }
  if (entry === undefined) return { milli: null, basis: 'no_price' };
  return { milli: entry.sms * q.segments, basis: 'sms_segments' };
}

/**
 * Test traffic (spec §2.6, §4.1 "Test phones of a test sender are not charged"), decided one way
 * everywhere: the message's sender is a test sender and the recipient is one of its test phones.
 * Sends refuse a test sender's other numbers at accept, so every accepted message of a test
 * sender is test traffic — at accept and again at fallback, where the same question is asked of
 * the same sender (the one the message was sent with, not its fallback SMS sender).
 */
export function isTestTraffic(sender: { isTest: boolean; testPhones: ReadonlySet<string> }, phoneDigits: string): boolean {
  return sender.isTest && sender.testPhones.has(phoneDigits);
}

/** 1/1000 credits as the number of credits the API shows. */
export const milliToCredits = (m: number): number => Math.round(m) / 1000;

/** Credits as given by a person or the API, in 1/1000 credits. */
export const creditsToMilli = (credits: number): number => Math.round(credits * 1000);
