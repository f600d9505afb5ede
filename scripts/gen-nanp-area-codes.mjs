// Regenerates src/schedule/nanp-area-codes.ts from two data files of Google's libphonenumber (Apache License 2.0,
// https://github.com/google/libphonenumber): resources/timezones/map_data.txt (number prefix → IANA zones) and
// resources/geocoding/en/1.txt (number prefix → place name). Give the checkout's resources folder:
//   node scripts/gen-nanp-area-codes.mjs <libphonenumber>/resources > src/schedule/nanp-area-codes.ts
// The rules it applies (documented in docs/decisions.md, "US and Canadian numbers by their area code"):
// - an area code's state or province: the name its 4-digit prefix has in the geocoding file, else the most frequent
//   state among its longer prefixes ("Bridgeport, CT");
// - its zones: every zone named by the area code's prefix and any longer prefix (a code split between zones lists
//   them all), in the order of the tz database's zone.tab for its country (east to west), after CORRECTIONS;
// - an overlay code gets exactly the zones of the codes it overlays (OVERLAYS);
// - only US and Canadian codes: the other NANP countries have one zone each and are countries of their own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const resources = process.argv[2];
if (!resources) {
  console.error('usage: node scripts/gen-nanp-area-codes.mjs <libphonenumber>/resources');
  process.exit(2);
}
const tzFile = readFileSync(join(resources, 'timezones/map_data.txt'), 'utf8');
const geoFile = readFileSync(join(resources, 'geocoding/en/1.txt'), 'utf8');

const US = {
  Alabama: 'AL', Alaska: 'AK', Arizona: 'AZ', Arkansas: 'AR', California: 'CA', Colorado: 'CO', Connecticut: 'CT', Delaware: 'DE',
  'Washington D.C.': 'DC', Florida: 'FL', Georgia: 'GA', Hawaii: 'HI', Idaho: 'ID', Illinois: 'IL', Indiana: 'IN', Iowa: 'IA',
  Kansas: 'KS', Kentucky: 'KY', Louisiana: 'LA', Maine: 'ME', Maryland: 'MD', Massachusetts: 'MA', Michigan: 'MI', Minnesota: 'MN',
  Mississippi: 'MS', Missouri: 'MO', Montana: 'MT', Nebraska: 'NE', Nevada: 'NV', 'New Hampshire': 'NH', 'New Jersey': 'NJ',
  'New Mexico': 'NM', 'New York': 'NY', 'North Carolina': 'NC', 'North Dakota': 'ND', Ohio: 'OH', Oklahoma: 'OK', Oregon: 'OR',
  Pennsylvania: 'PA', 'Rhode Island': 'RI', 'South Carolina': 'SC', 'South Dakota': 'SD', Tennessee: 'TN', Texas: 'TX', Utah: 'UT',
  Vermont: 'VT', Virginia: 'VA', 'Washington State': 'WA', Washington: 'WA', 'West Virginia': 'WV', Wisconsin: 'WI', Wyoming: 'WY',
};
const CA = {
  Alberta: 'AB', 'British Columbia': 'BC', 'British Colombia': 'BC', Manitoba: 'MB', 'New Brunswick': 'NB', 'Newfoundland and Labrador': 'NL',
  'Nova Scotia/Prince Edward Island': 'NS PE', 'Northwest Territories/Nunavut/Yukon': 'NT NU YT', Ontario: 'ON', Quebec: 'QC',
  Saskatchewan: 'SK',
};
const US_ABBR = new Set(Object.values(US));
const CA_ABBR = new Set(Object.values(CA).flatMap((v) => v.split(' ')));

/** A place name as ISO 3166-2 codes ("US-CT"; "CA-NS CA-PE" for a code covering two provinces), or null. */
function regionOf(name) {
  if (US[name]) return `US-${US[name]}`;
  if (CA[name]) return CA[name].split(' ').map((p) => `CA-${p}`).join(' ');
  const m = /, ([A-Z]{2})$/.exec(name);
  if (m && US_ABBR.has(m[1])) return `US-${m[1]}`;
  if (m && CA_ABBR.has(m[1])) return `CA-${m[1]}`;
  return null;
}

/**
 * Corrections of the source, each for a reason: America/Puerto_Rico (Atlantic time without daylight saving time) is
 * named for Newfoundland and Labrador, where Labrador's Atlantic time observes it (America/Halifax's rules); one
 * prefix of Alaska's 907 names Pacific/Honolulu, but all of Alaska observes daylight saving time and its
 * westernmost zone, America/Adak, is listed already.
 */
const CORRECTIONS = {
  709: { 'America/Puerto_Rico': 'America/Halifax' },
  879: { 'America/Puerto_Rico': 'America/Halifax' },
  907: { 'Pacific/Honolulu': null },
};

/**
 * Overlay codes (NANPA relief plans) whose base area spans more than one zone, or whose own entry in the source
 * disagrees with its base (689 as Central, 474 as Winnipeg): each gets exactly its base codes' zones and region.
 * Elsewhere an overlay and its base already agree in the source.
 */
const OVERLAYS = {
  986: ['208'], // Idaho
  930: ['812'], // southern Indiana
  364: ['270'], // western Kentucky
  448: ['850'], // Florida panhandle
  689: ['407'], // Orlando
  728: ['561'], // Palm Beach
  458: ['541'], // Oregon outside Portland
  639: ['306'], // Saskatchewan
  474: ['306'], // Saskatchewan
  581: ['418'], // eastern Quebec
  367: ['418'], // eastern Quebec
  879: ['709'], // Newfoundland and Labrador
  778: ['604', '250'], // British Columbia, all of it
  236: ['604', '250'],
  672: ['604', '250'],
  257: ['604', '250'],
};

// zone.tab order (east to west) for the sort.
const zoneTab = readFileSync('/usr/share/zoneinfo/zone.tab', 'utf8')
  .split('\n')
  .filter((l) => !l.startsWith('#') && l.trim() !== '')
  .map((l) => l.split('\t'));
const order = (country) => zoneTab.filter((r) => r[0] === country).map((r) => r[2]);

const zonesByCode = new Map();
for (const line of tzFile.split('\n')) {
  const m = /^1(\d{3})\d*\|(.+)$/.exec(line);
  if (!m) continue;
  if (!zonesByCode.has(m[1])) zonesByCode.set(m[1], new Set());
  for (const z of m[2].split('&')) zonesByCode.get(m[1]).add(z);
}
const namesByCode = new Map();
const baseName = new Map();
for (const line of geoFile.split('\n')) {
  const m = /^1(\d{3})(\d*)\|(.+)$/.exec(line);
  if (!m) continue;
  if (m[2] === '') baseName.set(m[1], m[3]);
  const r = regionOf(m[3]);
  if (!r) continue;
  if (!namesByCode.has(m[1])) namesByCode.set(m[1], new Map());
  const counts = namesByCode.get(m[1]);
  counts.set(r, (counts.get(r) ?? 0) + 1);
}

const table = new Map();
for (const code of new Set([...zonesByCode.keys(), ...namesByCode.keys()])) {
  let region = baseName.has(code) ? regionOf(baseName.get(code)) : null;
  if (!region && namesByCode.has(code)) region = [...namesByCode.get(code)].sort((a, b) => b[1] - a[1])[0][0];
  if (!region) continue; // another NANP country, or a non-geographic code
  const fix = CORRECTIONS[code] ?? {};
  const zones = [...(zonesByCode.get(code) ?? [])].map((z) => (z in fix ? fix[z] : z)).filter((z) => z !== null);
  table.set(code, { region, zones: [...new Set(zones)] });
}
for (const [code, bases] of Object.entries(OVERLAYS)) {
  const zones = new Set(bases.flatMap((b) => table.get(b).zones));
  table.set(code, { region: table.get(bases[0]).region, zones: [...zones] });
}
for (const [code, entry] of table) {
  const country = entry.region.slice(0, 2);
  const tab = order(country);
  const rank = (z) => (tab.includes(z) ? tab.indexOf(z) : tab.length);
  entry.zones.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const z of entry.zones) new Intl.DateTimeFormat('en', { timeZone: z }); // throws on a zone the runtime lacks
  if (entry.zones.length === 0) throw new Error(`${code}: no zone`);
}

const out = [];
out.push('/**');
out.push(' * The geographic area codes of the United States and Canada in the North American Numbering Plan: the state or');
out.push(' * province (ISO 3166-2; two or three for the codes that cover several) and every IANA zone the area code may be');
out.push(' * in, in the tz database\'s order for the country (east to west). Generated by scripts/gen-nanp-area-codes.mjs from');
out.push(' * Google libphonenumber\'s resources/timezones/map_data.txt and resources/geocoding/en/1.txt (release 9.0.35,');
out.push(' * July 2026; Copyright The Libphonenumber Authors, Apache License 2.0, https://github.com/google/libphonenumber),');
out.push(' * with the corrections and overlays the script lists. Data, not code: edit the script and regenerate.');
out.push(' *');
out.push(' * Absent on purpose: non-geographic codes (toll-free 8XX, 5XX, 600, 900), the other NANP countries (each a');
out.push(' * country of its own with one zone), and codes the source does not place yet — all fall back to the country.');
out.push(' */');
out.push('export interface NanpAreaCode {');
out.push('  /** ISO 3166-2 code of the state or province, space-separated when the code covers several (902, 867). */');
out.push('  readonly region: string;');
out.push('  /** Every IANA zone a number of this code may be in; several: the window must be open in each. */');
out.push('  readonly zones: readonly string[];');
out.push('}');
out.push('');
out.push('export const NANP_AREA_CODES: Readonly<Record<string, NanpAreaCode>> = {');
for (const code of [...table.keys()].sort()) {
  const e = table.get(code);
  out.push(`  '${code}': { region: '${e.region}', zones: [${e.zones.map((z) => `'${z}'`).join(', ')}] },`);
}
out.push('};');
out.push('');
out.push('/** Overlay codes whose zones are their base codes\' (the rest agree with their base in the source already). */');
out.push('export const NANP_OVERLAYS: Readonly<Record<string, readonly string[]>> = {');
for (const code of Object.keys(OVERLAYS).sort()) out.push(`  '${code}': [${OVERLAYS[code].map((b) => `'${b}'`).join(', ')}],`);
out.push('};');
console.log(out.join('\n'));
