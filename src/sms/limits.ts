/** Longest SMS body we accept (standalone and fallback): ten concatenated GSM-7 parts (§8). */
export const SMS_MAX_LENGTH = 1530;
/** The number of segments SMS_MAX_LENGTH was sized for; longer bodies are billed but flagged. */
export const SMS_MAX_SEGMENTS = 10;

/** A lone GSM-7 message carries 160 septets. */
export const GSM7_SINGLE_SEGMENT_UNITS = 160;
/** Each part of a concatenated GSM-7 message loses 7 septets to the UDH, leaving 153. */
export const GSM7_MULTI_SEGMENT_UNITS = 153;
/** A lone UCS-2 message carries 70 UTF-16 code units. */
export const UCS2_SINGLE_SEGMENT_UNITS = 70;
/** Each part of a concatenated UCS-2 message loses 3 code units to the UDH, leaving 67. */
export const UCS2_MULTI_SEGMENT_UNITS = 67;
