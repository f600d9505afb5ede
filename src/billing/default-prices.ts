/**
 * The price list every new account starts with, in 1/1000 credit: RCS per message, SMS per segment.
 * Operators change an account's list with `npm run admin -- prices:set`. A country that is not in
 * an account's list cannot be messaged or stored as a contact (spec §2.8).
 *
 * Coverage: the EU and EEA (27 + IS, LI, NO), the UK, Switzerland, the US and Canada.
 * These are list prices of this project, not any carrier's: 1 credit is meant as one unit of the
 * operator's currency. See docs/decisions.md.
 */
export interface PriceEntry {
  rcs: number;
  sms: number;
}

const EU = ['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE'] as const;
const EEA_EXTRA = ['IS', 'LI', 'NO'] as const;

export const DEFAULT_PRICES: Readonly<Record<string, PriceEntry>> = Object.freeze({
  ...Object.fromEntries(EU.map((c) => [c, { rcs: 30, sms: 75 }])),
  ...Object.fromEntries(EEA_EXTRA.map((c) => [c, { rcs: 35, sms: 80 }])),
  // Higher-cost European markets
  DE: { rcs: 35, sms: 85 },
  FR: { rcs: 35, sms: 80 },
  GB: { rcs: 30, sms: 40 },
  CH: { rcs: 40, sms: 90 },
  US: { rcs: 20, sms: 10 },
  CA: { rcs: 20, sms: 12 },
});
