/**
 * Content validation and SMS segmentation throughput on one core (DESIGN §8: ≥ 20,000 rich-card
 * validations/s, on the median). Run: npx tsx bench/validate.ts. The reference, the JSON
 * round-trip of the same card, makes figures comparable across machines. Validation and reference
 * each run in a process of their own (this script with `--side`), alternating in BENCH_ROUNDS
 * pairs (default 3), the order flipped each pair; medians and spread are printed. (Before issue
 * #31 every figure was taken one after another in one process.)
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { validateContent } from '../src/content/index.js';
import { analyzeSms } from '../src/sms/analyze.js';
import { parseSendBody } from '../src/messaging/prepare.js';
import { SendMessageRequestSchema } from '../src/messaging/schemas.js';
import { median } from './lib/stats.js';

export const RICH_CARD_BAR_PER_SECOND = 20_000;

export interface ValidateBenchFigures {
  richCardValidationsPerSecond: number;
  /** The send door: the whole /send body parsed once, errors only (no warnings), as a send pays. */
  richCardSendParsesPerSecond: number;
  jsonRoundTripPerSecond: number;
  smsGsm1530PerSecond: number;
  smsUnicode1530PerSecond: number;
  bar: number;
  pass: boolean;
}

export const benchRichCard = {
  title: 'Spring sale, {{contact_first_name}}!',
  description:
    'Everything in the spring collection is 30% off until Sunday. Show this card in store or tap below to shop online. Free delivery above 50 €.',
  cardOrientation: 'VERTICAL',
  media: {
    height: 'MEDIUM',
    contentInfo: {
      fileUrl: 'https://cdn.example.com/campaigns/spring-2026/hero-1200x630.jpg',
      contentType: 'image/jpeg',
      thumbnailUrl: 'https://cdn.example.com/campaigns/spring-2026/hero-thumb.jpg',
      forceRefresh: false,
    },
  },
  cardActions: [
    { text: 'Shop now', type: 'openUrl', openUrlAction: { url: 'https://shop.example.com/spring?c={{contact_phone}}' } },
    { text: 'Call us', type: 'dial', dialAction: { phoneNumber: '+4930123456789' } },
    { text: 'Remind me', type: 'postback', postbackData: 'remind_spring_sale_2026' },
    {
      text: 'Add to calendar',
      type: 'addToCalendar',
      calendarAction: {
        startTime: '2026-04-18T09:00:00+02:00',
        endTime: '2026-04-19T18:00:00+02:00',
        title: 'Spring sale',
        description: 'Last days of the spring sale',
      },
    },
  ],
  suggestions: [
    { reply: { text: 'Yes please', postbackData: 'yes' } },
    { reply: { text: 'Not now', postbackData: 'no' } },
    { action: { text: 'Find a store', type: 'viewLocation', viewLocationAction: { latLong: { latitude: 52.52, longitude: 13.405 }, label: 'Store' } } },
    { action: { text: 'Open in app', type: 'openUrlInWebview', openUrlInWebviewAction: { url: 'https://shop.example.com/app', viewMode: 'TALL' } } },
    { action: { text: 'Share location', type: 'shareLocation', shareLocationAction: {} } },
    { action: { text: 'Unsubscribe', type: 'unsubscribe', unsubscribeAction: { stopKeyword: 'STOP' } } },
  ],
};

const GSM_1530 = 'Hello {name}, your parcel is on its way. Track it at https://t.example.com/abc123 ~ '.repeat(40).slice(0, 1530);
const UNICODE_1530 = 'Grüße aus Köln 🎉 — Ihr Paket ist unterwegs, Sendungsnummer: 4711. '.repeat(40).slice(0, 1530);

/** Runs fn for about `ms` after a warm-up and returns operations per second. */
function measure(fn: () => unknown, ms = 2000): number {
  const warmEnd = performance.now() + 300;
  while (performance.now() < warmEnd) for (let i = 0; i < 100; i++) fn();
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  let sink = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 200; i++) {
      if (fn() !== undefined) sink++;
    }
    ops += 200;
    elapsed = performance.now() - start;
  }
  if (sink < 0) console.log(sink);
  return Math.round((ops / elapsed) * 1000);
}

type Side = 'validate' | 'reference';
type SideFigures = Partial<Omit<ValidateBenchFigures, 'bar' | 'pass'>>;

/** One side in this process: the validation figures, or the reference (the JSON round trip of the same card). */
function measureSide(side: Side, ms: number): SideFigures {
  if (side === 'reference') return { jsonRoundTripPerSecond: measure(() => JSON.parse(JSON.stringify(benchRichCard)), ms) };
  const check = validateContent('richCard', benchRichCard);
  if (!check.valid) throw new Error(`bench card is invalid: ${JSON.stringify(check.errors)}`);
  const sendBody = { phoneNumber: '+4915112345678', sendernameId: 'snd_bench', messageType: 'richCard', content: benchRichCard };
  return {
    richCardValidationsPerSecond: measure(() => validateContent('richCard', benchRichCard), ms),
    richCardSendParsesPerSecond: measure(() => parseSendBody(SendMessageRequestSchema, sendBody), ms),
    smsGsm1530PerSecond: measure(() => analyzeSms(GSM_1530).segments, ms),
    smsUnicode1530PerSecond: measure(() => analyzeSms(UNICODE_1530).segments, ms),
  };
}

/** One side in a process of its own (this script with --side), so neither inherits the other's JIT or heap. */
function sideInChild(side: Side, ms: number): Promise<SideFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--side', side, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as SideFigures) : reject(new Error(`validate --side ${side} exited ${code}`))));
  });
}

export async function run(options: { durationMs?: number; rounds?: number; print?: boolean } = {}): Promise<ValidateBenchFigures> {
  const ms = options.durationMs ?? 2000;
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3);
  const before = os.loadavg();
  const validation: SideFigures[] = [];
  const reference: SideFigures[] = [];
  // Pairs, the order flipped each pair, so drift on a shared machine hits both alike.
  for (let r = 0; r < rounds; r++) {
    const order: Side[] = r % 2 === 0 ? ['validate', 'reference'] : ['reference', 'validate'];
    for (const side of order) (side === 'validate' ? validation : reference).push(await sideInChild(side, ms));
  }
  const all = (xs: SideFigures[], k: keyof SideFigures) => xs.map((x) => x[k]!);
  const figures: ValidateBenchFigures = {
    richCardValidationsPerSecond: median(all(validation, 'richCardValidationsPerSecond')),
    richCardSendParsesPerSecond: median(all(validation, 'richCardSendParsesPerSecond')),
    jsonRoundTripPerSecond: median(all(reference, 'jsonRoundTripPerSecond')),
    smsGsm1530PerSecond: median(all(validation, 'smsGsm1530PerSecond')),
    smsUnicode1530PerSecond: median(all(validation, 'smsUnicode1530PerSecond')),
    bar: RICH_CARD_BAR_PER_SECOND,
    pass: false,
  };
  figures.pass = figures.richCardValidationsPerSecond >= RICH_CARD_BAR_PER_SECOND;
  if (options.print ?? true) {
    const spread = (xs: number[]) => `${median(xs).toLocaleString('en-US').padStart(12)}  (${Math.min(...xs).toLocaleString('en-US')}–${Math.max(...xs).toLocaleString('en-US')})`;
    const gsm = analyzeSms(GSM_1530);
    const uni = analyzeSms(UNICODE_1530);
    const ratios = validation.map((v, i) => v.richCardValidationsPerSecond! / reference[i]!.jsonRoundTripPerSecond!);
    const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
    console.log(`content validation & SMS segmentation (one core, ~${ms} ms per figure, node ${process.version})`);
    console.log(`  ${rounds} alternating pairs, validation and reference each in a process of their own; medians (min–max); load average before ${load(before)}, after ${load(os.loadavg())}`);
    console.log(`  rich card validations/s         ${spread(all(validation, 'richCardValidationsPerSecond'))}  (card: media, 4 card actions, 6 chips)`);
    console.log(`  /send body parses/s             ${spread(all(validation, 'richCardSendParsesPerSecond'))}  (the same card in a /send body, errors only: what a send pays)`);
    console.log(`  reference JSON round-trip/s     ${spread(all(reference, 'jsonRoundTripPerSecond'))}  (JSON.parse(JSON.stringify(card)))`);
    console.log(`  validation ÷ round-trip         ${median(ratios).toFixed(2).padStart(12)}  (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}, per pair)`);
    console.log(`  SMS 1530 chars GSM-7/s          ${spread(all(validation, 'smsGsm1530PerSecond'))}  (${gsm.segments} segments)`);
    console.log(`  SMS 1530 chars Unicode/s        ${spread(all(validation, 'smsUnicode1530PerSecond'))}  (${uni.segments} segments)`);
    console.log(`  bar: ≥ ${RICH_CARD_BAR_PER_SECOND.toLocaleString('en-US')} rich-card validations/s (median) → ${figures.pass ? 'PASS' : 'FAIL'}`);
  }
  return figures;
}

const argSide = process.argv.indexOf('--side');
if (argSide !== -1) {
  const side = process.argv[argSide + 1];
  if (side !== 'validate' && side !== 'reference') throw new Error('--side validate|reference <ms>');
  process.stdout.write(`${JSON.stringify(measureSide(side, Number(process.argv[argSide + 2] ?? 2000)))}\n`);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await run();
  if (!figures.pass) process.exitCode = 1;
}
