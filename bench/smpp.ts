/**
 * SMPP submit throughput through one bind, window 10 (issue #17): the adapter's whole carrier path
 * (`SmppCarrier.sendMany`: records in smpp_messages / smpp_parts on a SQLite file, submit_sm per
 * part, acknowledged ids recorded before it answers) against the `smpp` package's own client
 * sending the same PDUs with the same window, in the same run, to the same local test SMSC (the
 * fake SMSC of test/carriers, answering at once, in a child process so that it does not share
 * an event loop with either side). Each side runs in a process of its own (this script with
 * `--side`: an unmeasured warm-up of 500 messages, then the measured ones), the two alternating
 * in BENCH_ROUNDS pairs (default 5), the order flipped each pair. Bar: the median over the
 * pairs of adapter ÷ client ≥ 80 %, for one-part GSM-7 messages and for 3-part UCS-2 messages;
 * exits 1 when missed. (Before issue #31 both sides ran in the measuring process.)
 *
 * Run: npx tsx bench/smpp.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OutboundSms } from '../src/carriers/carrier.js';
import { SenderDirectory } from '../src/carriers/sender-config.js';
import { SmppCarrier } from '../src/carriers/smpp/carrier.js';
import { sourceAddress, submitBodies } from '../src/carriers/smpp/encoding.js';
import { connectSmpp, type PduOptions } from '../src/carriers/smpp/smpp-lib.js';
import { systemClock } from '../src/platform/clock.js';
import { openDatabase } from '../src/bootstrap/database.js';
import { newId } from '../src/platform/ids.js';
import { createLogger } from '../src/platform/logger.js';
import { analyzeSms, splitSms } from '../src/sms/index.js';
import { median } from './lib/stats.js';

export const RATIO_BAR = 0.8;
const WINDOW = 10;
let dbCounter = 0;

export interface SmppCaseFigures {
  adapterPerSecond: number;
  libraryPerSecond: number;
  /** The median over the pairs of the adapter's rate ÷ the client's in the same pair: the bar. */
  ratio: number;
  /** CPU µs per submit_sm in this process. */
  adapterCpuMicros: number;
  libraryCpuMicros: number;
}

export interface SmppBenchFigures {
  gsm: SmppCaseFigures;
  ucs2: SmppCaseFigures;
  pass: boolean;
}

const GSM_TEXT = 'Your code is 4711. It expires in 10 minutes. Do not share it.';
// 3 UCS-2 parts (67 units each after the UDH): 150 characters with a Cyrillic word.
const UCS2_TEXT = 'Здравствуйте! Ваш заказ №4711 готов к выдаче в пункте на Ленина 5, пн–сб 9–20 ч. Код получения: 8832. Спасибо, что выбрали нас, до встречи в магазине!'.padEnd(150, '·');

export function messages(count: number, text: string, offset: number): OutboundSms[] {
  const parts = splitSms(text).map((p) => p.text);
  const encoding = analyzeSms(text).encoding;
  return Array.from({ length: count }, (_, i) => ({
    messageId: newId('msg'),
    accountId: 'acc_bench',
    senderId: 'snd_bench',
    senderName: 'ACME',
    to: `+49151${String(offset + i).padStart(8, '0')}`,
    text,
    parts,
    encoding,
  }));
}

/** The PDUs the adapter sends for these messages, built by the same code. */
export function pdusOf(list: readonly OutboundSms[]): PduOptions[] {
  const out: PduOptions[] = [];
  for (const m of list) {
    const source = sourceAddress(m.senderName);
    for (const body of submitBodies(m.parts, m.encoding, 7)) {
      out.push({
        source_addr_ton: source.ton,
        source_addr_npi: source.npi,
        source_addr: source.addr,
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        destination_addr: m.to.slice(1),
        esm_class: body.esmClass,
        registered_delivery: 1,
        data_coding: body.dataCoding,
        short_message: body.shortMessage,
      });
    }
  }
  return out;
}

/** The package's own client: bind_transceiver, then the PDUs with at most WINDOW outstanding. */
interface RunFigures {
  /** submit_sm per second, wall clock. */
  perSecond: number;
  /** CPU of this process (user + system) per submit_sm, µs: steadier than wall time on a loaded machine. */
  cpuMicros: number;
}

export async function libraryRun(port: number, pdus: readonly PduOptions[]): Promise<RunFigures> {
  const s = connectSmpp({ host: '127.0.0.1', port });
  s.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    s.on('connect', () => s.bind_transceiver({ system_id: 'rcsapp', password: 's3cret', interface_version: 0x34 }, (pdu) => (pdu.command_status === 0 ? resolve() : reject(new Error('bind refused')))));
  });
  const start = performance.now();
  const cpu = process.cpuUsage();
  await new Promise<void>((resolve, reject) => {
    let next = 0;
    let done = 0;
    const sendOne = () => {
      const i = next++;
      s.submit_sm(pdus[i]!, (resp) => {
        if (resp.command_status !== 0) return reject(new Error(`submit refused: ${resp.command_status}`));
        if (++done === pdus.length) return resolve();
        if (next < pdus.length) sendOne();
      });
    };
    for (let i = 0; i < Math.min(WINDOW, pdus.length); i++) sendOne();
  });
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  await new Promise<void>((resolve) => s.unbind(() => s.close(resolve)));
  return { perSecond: Math.round((pdus.length / elapsed) * 1000), cpuMicros: (used.user + used.system) / pdus.length };
}

/** The adapter: sendMany over one transceiver bind, window 10, recording to a SQLite file. */
export async function adapterRun(port: number, list: readonly OutboundSms[], dir: string): Promise<RunFigures> {
  const database = await openDatabase(path.join(dir, `smpp-${++dbCounter}.db`));
  const carrier = new SmppCarrier(
    database.db,
    systemClock,
    createLogger('silent'),
    { url: `smpp://rcsapp:s3cret@127.0.0.1:${port}`, window: WINDOW, enquireLinkMs: 30_000, systemType: '' },
    new SenderDirectory(database.db),
  );
  await carrier.start(async (evs) => evs.map(() => true));
  while (!carrier.isBound()) await new Promise((r) => setTimeout(r, 5));
  const parts = list.reduce((n, m) => n + m.parts.length, 0);
  const start = performance.now();
  const cpu = process.cpuUsage();
  const outcomes = await carrier.sendMany(list);
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length > 0) throw new Error(`${failed.length} sends failed: ${JSON.stringify(failed[0])}`);
  await carrier.stop();
  await database.close();
  return { perSecond: Math.round((parts / elapsed) * 1000), cpuMicros: (used.user + used.system) / parts };
}

export async function startSmscChild(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--smsc'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /port (\d+)/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`SMSC child exited (${code})`)));
  });
  return { port, child };
}


type Side = 'library' | 'adapter';
const TEXTS = { gsm: GSM_TEXT, ucs2: UCS2_TEXT } as const;
type TextKind = keyof typeof TEXTS;

/**
 * One side of one round, in this process: an unmeasured warm-up of 500 messages (JIT, the first
 * bind, SQLite pages), then `count` messages measured. Run by `--side` in a child process.
 */
async function measureSide(side: Side, port: number, kind: TextKind, count: number, offset: number): Promise<RunFigures> {
  const text = TEXTS[kind];
  if (side === 'library') {
    await libraryRun(port, pdusOf(messages(500, text, 90_000_000)));
    return libraryRun(port, pdusOf(messages(count, text, offset)));
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smpp-'));
  try {
    await adapterRun(port, messages(500, text, 91_000_000), dir);
    return await adapterRun(port, messages(count, text, offset), dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One side of one round in a process of its own (this script with --side), so neither side inherits the other's JIT, heap or event loop. */
function sideInChild(side: Side, port: number, kind: TextKind, count: number, offset: number): Promise<RunFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--side', side, String(port), kind, String(count), String(offset)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as RunFigures) : reject(new Error(`smpp --side ${side} exited ${code}`))));
  });
}

export async function run(options: { rounds?: number; print?: boolean } = {}): Promise<SmppBenchFigures> {
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 5);
  const before = os.loadavg();
  const { port, child } = await startSmscChild();
  try {
    const measure = async (kind: TextKind, count: number) => {
      // Alternating pairs, the order flipped each round, each side in its own process; medians.
      const lib: RunFigures[] = [];
      const ours: RunFigures[] = [];
      for (let r = 0; r < rounds; r++) {
        const order: Side[] = r % 2 === 0 ? ['library', 'adapter'] : ['adapter', 'library'];
        for (const side of order) {
          if (side === 'library') lib.push(await sideInChild('library', port, kind, count, r * 100_000));
          else ours.push(await sideInChild('adapter', port, kind, count, 50_000_000 + r * 100_000));
        }
      }
      // Per pair: the adapter over the client it was paired with; the bar is on their median.
      const pairRatios = ours.map((x, i) => x.perSecond / lib[i]!.perSecond);
      const f: SmppCaseFigures = {
        adapterPerSecond: median(ours.map((x) => x.perSecond)),
        libraryPerSecond: median(lib.map((x) => x.perSecond)),
        ratio: median(pairRatios),
        adapterCpuMicros: Math.round(median(ours.map((x) => x.cpuMicros))),
        libraryCpuMicros: Math.round(median(lib.map((x) => x.cpuMicros))),
      };
      return { ...f, lib: lib.map((x) => x.perSecond), ours: ours.map((x) => x.perSecond), pairRatios };
    };
    if (splitSms(UCS2_TEXT).length !== 3) throw new Error('the UCS-2 bench text must have 3 parts');
    const gsm = await measure('gsm', 4000);
    const ucs2 = await measure('ucs2', 1500);
    const strip = ({ lib: _l, ours: _o, pairRatios: _p, ...f }: typeof gsm): SmppCaseFigures => f;
    const figures: SmppBenchFigures = { gsm: strip(gsm), ucs2: strip(ucs2), pass: gsm.ratio >= RATIO_BAR && ucs2.ratio >= RATIO_BAR };
    if (options.print ?? true) {
      const fmt = (n: number) => n.toLocaleString('en-US').padStart(8);
      const pct = (xs: number[]) => `${(median(xs) * 100).toFixed(0)} % (${(Math.min(...xs) * 100).toFixed(0)}–${(Math.max(...xs) * 100).toFixed(0)} %)`;
      const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
      console.log(`SMPP submit_sm/s through one bind, window ${WINDOW}, local test SMSC answering at once (child process); node ${process.version}`);
      console.log(`  ${rounds} alternating pairs, adapter and smpp client each in a process of their own; load average before ${load(before)}, after ${load(os.loadavg())}`);
      for (const [name, f] of [
        ['1-part GSM-7', gsm],
        ['3-part UCS-2', ucs2],
      ] as const) {
        console.log(`  ${name.padEnd(13)} adapter ${fmt(f.adapterPerSecond)}/s   smpp client ${fmt(f.libraryPerSecond)}/s   (medians)   adapter ÷ client per pair ${pct(f.pairRatios)}`);
        console.log(`  ${''.padEnd(13)} rounds: adapter ${f.ours.join(', ')}; client ${f.lib.join(', ')}`);
        console.log(`  ${''.padEnd(13)} CPU per submit_sm in its process: adapter ${f.adapterCpuMicros} µs, smpp client ${f.libraryCpuMicros} µs`);
      }
      console.log(`  bar: adapter ≥ ${RATIO_BAR * 100} % of the smpp client (median of the pairs' ratios) → ${figures.pass ? 'PASS' : 'FAIL'}`);
    }
    return figures;
  } finally {
    child.kill();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argSide = process.argv.indexOf('--side');
  if (process.argv.includes('--smsc')) {
    const { startFakeSmsc } = await import('../test/carriers/fake-smsc.js');
    const smsc = await startFakeSmsc();
    smsc.respondAfterMs = 0;
    // Nothing is asserted on what it received: keep memory flat over many rounds.
    setInterval(() => smsc.submits.splice(0), 1000).unref();
    console.log(`port ${smsc.port}`);
  } else if (argSide !== -1) {
    const [side, port, kind, count, offset] = process.argv.slice(argSide + 1);
    if ((side !== 'library' && side !== 'adapter') || (kind !== 'gsm' && kind !== 'ucs2')) throw new Error('--side library|adapter <port> gsm|ucs2 <count> <offset>');
    process.stdout.write(`${JSON.stringify(await measureSide(side, Number(port), kind, Number(count), Number(offset)))}\n`);
  } else {
    const figures = await run();
    if (!figures.pass) process.exitCode = 1;
  }
}
