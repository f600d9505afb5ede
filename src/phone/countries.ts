export type Channel = 'rcs' | 'sms';

/** Per-country prices of an account; null means the channel is not offered there. */
export type PriceList = ReadonlyMap<string, { rcs: number | null; sms: number | null }>;

/** True when the account's price list prices this channel for the country (§2.8, §4.7 rule 6). */
export function countryAllowed(country: string, priceList: PriceList, channel: Channel): boolean {
  const entry = priceList.get(country.toUpperCase());
  const price = entry?.[channel];
  return typeof price === 'number' && Number.isFinite(price);
}

/** Contacts are stored only for countries the price list names at all (§2.8, COUNTRY_NOT_SUPPORTED). */
export function countryInPriceList(country: string, priceList: PriceList): boolean {
  return priceList.has(country.toUpperCase());
}

/** Both channels at once; neither reachable is the SMS_COUNTRY_NOT_SUPPORTED case of §4.7 rule 6. */
export function countryReach(country: string, priceList: PriceList): { rcs: boolean; sms: boolean } {
  return { rcs: countryAllowed(country, priceList, 'rcs'), sms: countryAllowed(country, priceList, 'sms') };
}
