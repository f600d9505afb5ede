/** Stored phone numbers: country code included, 6 to 20 digits (§2.8, §8). */
export const PHONE_MIN_DIGITS = 6;
export const PHONE_MAX_DIGITS = 20;
