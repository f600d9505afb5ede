import type { PriceList } from '../accounts/service.js';

/**
 * Whether a message to this number is free because a conversation window is open (spec §3.3).
 * The engagement area provides the real one; until then nothing is free by conversation.
 */
export interface ConversationPricing {
  isFree(accountId: string, senderId: string, phone: string, at: number): Promise<boolean>;
}

export const noConversationPricing: ConversationPricing = { isFree: async () => false };

/** Price of one RCS message to a country, 1/1000 credit; null when the country has no RCS price. */
export function rcsPrice(priceList: PriceList, country: string): number | null {
  return priceList.get(country)?.rcs ?? null;
}

/** Price of an SMS of `segments` segments, 1/1000 credit; null when the country has no SMS price. */
export function smsPrice(priceList: PriceList, country: string, segments: number): number | null {
  const p = priceList.get(country)?.sms;
  return p === undefined ? null : p * segments;
}

export const milliToCredits = (m: number): number => Math.round(m) / 1000;
