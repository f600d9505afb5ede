/**
 * GSM 03.38 (3GPP TS 23.038) default alphabet. Index = septet value; the string form keeps the
 * table reviewable against the standard. 0x1B is the escape to the extension table and is not a
 * character of its own, so it is left out (a literal ESC in text forces UCS-2).
 */
const BASIC_TABLE =
  '@£$¥èéùìòÇ\nØø\rÅå' +
  'Δ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ' +
  ' !"#¤%&\'()*+,-./' +
  '0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNO' +
  'PQRSTUVWXYZÄÖÑÜ§' +
  '¿abcdefghijklmno' +
  'pqrstuvwxyzäöñüà';

/** Characters reachable through ESC: each costs two septets (ESC + code). */
export const GSM_EXTENSION_CHARACTERS = '\f^{}\\[~]|€';

/** Septet cost per UTF-16 code unit: 0 = not in GSM-7, 1 = basic table, 2 = extension table. */
export const GSM_SEPTET_COST: Uint8Array = buildCostTable();

function buildCostTable(): Uint8Array {
  const table = new Uint8Array(0x10000);
  for (const ch of BASIC_TABLE) {
    if (ch !== '\u001b') table[ch.charCodeAt(0)] = 1;
  }
  for (const ch of GSM_EXTENSION_CHARACTERS) table[ch.charCodeAt(0)] = 2;
  return table;
}

export const GSM_BASIC_CHARACTERS = BASIC_TABLE.replace('\u001b', '');
