/**
 * Content validation and SMS segmentation throughput on one core (DESIGN §8: ≥ 20,000 rich-card
 * validations/s). Run: npx tsx bench/validate.ts. The JSON round-trip of the same card, measured
 * in the same run, is the baseline that makes figures comparable across machines.
 */
import { pathToFileURL } from 'node:url';
import { validateContent } from '../src/content/index.js';
import { analyzeSms } from '../src/sms/analyze.js';
import { parseSendBody } from '../src/messaging/prepare.js';
import { SendMessageRequestSchema } from '../src/messaging/schemas.js';

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

export async function run(options: { durationMs?: number; print?: boolean } = {}): Promise<ValidateBenchFigures> {
  const ms = options.durationMs ?? 2000;
  const check = validateContent('richCard', benchRichCard);
  if (!check.valid) throw new Error(`bench card is invalid: ${JSON.stringify(check.errors)}`);

  const richCardValidationsPerSecond = measure(() => validateContent('richCard', benchRichCard), ms);
  const sendBody = { phoneNumber: '+4915112345678', sendernameId: 'snd_bench', messageType: 'richCard', content: benchRichCard };
  const richCardSendParsesPerSecond = measure(() => parseSendBody(SendMessageRequestSchema, sendBody), ms);
  const jsonRoundTripPerSecond = measure(() => JSON.parse(JSON.stringify(benchRichCard)), ms);
  const smsGsm1530PerSecond = measure(() => analyzeSms(GSM_1530).segments, ms);
  const smsUnicode1530PerSecond = measure(() => analyzeSms(UNICODE_1530).segments, ms);
  const figures: ValidateBenchFigures = {
    richCardValidationsPerSecond,
    richCardSendParsesPerSecond,
    jsonRoundTripPerSecond,
    smsGsm1530PerSecond,
    smsUnicode1530PerSecond,
    bar: RICH_CARD_BAR_PER_SECOND,
    pass: richCardValidationsPerSecond >= RICH_CARD_BAR_PER_SECOND,
  };
  if (options.print ?? true) {
    const fmt = (n: number): string => n.toLocaleString('en-US').padStart(12);
    const gsm = analyzeSms(GSM_1530);
    const uni = analyzeSms(UNICODE_1530);
    console.log(`content validation & SMS segmentation (one core, ~${ms} ms per figure, node ${process.version})`);
    console.log(`  rich card validations/s         ${fmt(richCardValidationsPerSecond)}  (card: media, 4 card actions, 6 chips)`);
    console.log(`  /send body parses/s             ${fmt(richCardSendParsesPerSecond)}  (the same card in a /send body, errors only: what a send pays)`);
    console.log(`  baseline JSON round-trip/s      ${fmt(jsonRoundTripPerSecond)}  (JSON.parse(JSON.stringify(card)), same run)`);
    console.log(`  ratio validation / round-trip   ${(richCardValidationsPerSecond / jsonRoundTripPerSecond).toFixed(2).padStart(12)}`);
    console.log(`  SMS 1530 chars GSM-7/s          ${fmt(smsGsm1530PerSecond)}  (${gsm.segments} segments)`);
    console.log(`  SMS 1530 chars Unicode/s        ${fmt(smsUnicode1530PerSecond)}  (${uni.segments} segments)`);
    console.log(`  bar: ≥ ${RICH_CARD_BAR_PER_SECOND.toLocaleString('en-US')} rich-card validations/s → ${figures.pass ? 'PASS' : 'FAIL'}`);
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await run();
  if (!figures.pass) process.exitCode = 1;
}
