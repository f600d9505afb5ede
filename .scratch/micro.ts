import pg from 'pg';
const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/h5_scratch' });
await c.connect();
await c.query('truncate messages');
const N = 1000;
let seq = 0;
const row = () => {
  const i = ++seq;
  return { id: `msg_${String(i).padStart(10, '0')}`, account_id: 'acc_1', job_id: 'job_1', type: 'RCS', status: 'SENDING', direction: 'OUTBOUND', source: 'API_MESSAGE', phone: `4915${100000000 + i}`, country: 'DE', contact_id: `ct_${i}`, sendername_id: 'snd_1', message_type: 'text', content: JSON.stringify({ text: `Hello Person${i}, your gold offer from Bench Co is ready.` }), text: `Hello Person${i}, your gold offer from Bench Co is ready.`, sms_fallback: null, fallback_text: null, campaign_name: 'bench', credits_cost_milli: 50, sms_segments: null, sms_encoding: null, method: null, fallback_used: 0, fallback_reason: null, error: null, carrier_message_id: null, created_at: 1700000000000, scheduled_at: null, sent_at: null, delivered_at: null, read_at: null, failed_at: null, pending: 1, due_at: 1700000000000, lease_until: 1700000030000, attempts: 1, time_zone: null };
};
const cols = Object.keys(row());
seq = 0;
const names = cols.map((c) => `"${c}"`).join(', ');
const variants: Record<string, (rows: ReturnType<typeof row>[]) => Promise<unknown>> = {
  jsonb: (rows) => c.query(`insert into messages (${names}) select ${names} from jsonb_populate_recordset(null::messages, $1::jsonb)`, [JSON.stringify(rows)]),
  json: (rows) => c.query(`insert into messages (${names}) select ${names} from json_populate_recordset(null::messages, $1::json)`, [JSON.stringify(rows)]),
};
const upd: Record<string, (ids: string[]) => Promise<unknown>> = {
  jsonb: (ids) => c.query(`update messages set status = 'SENT', method = 'RCS', sent_at = 1, pending = 0, lease_until = null, error = null, carrier_message_id = v.c0 from (select id, carrier_message_id from jsonb_populate_recordset(null::messages, $1::jsonb)) as v(k, c0) where messages.id = v.k and ((pending = 1) is true) returning messages.id`, [JSON.stringify(ids.map((id) => ({ id, carrier_message_id: 'sim_' + id })))]),
  json: (ids) => c.query(`update messages set status = 'SENT', method = 'RCS', sent_at = 1, pending = 0, lease_until = null, error = null, carrier_message_id = v.c0 from (select id, carrier_message_id from json_populate_recordset(null::messages, $1::json)) as v(k, c0) where messages.id = v.k and ((pending = 1) is true) returning messages.id`, [JSON.stringify(ids.map((id) => ({ id, carrier_message_id: 'sim_' + id })))]),
  unnest: (ids) => c.query(`update messages set status = 'SENT', method = 'RCS', sent_at = 1, pending = 0, lease_until = null, error = null, carrier_message_id = v.c0 from unnest($1::text[], $2::text[]) as v(k, c0) where messages.id = v.k and ((pending = 1) is true) returning messages.id`, [ids, ids.map((id) => 'sim_' + id)]),
};
const times: Record<string, number[]> = {};
const t = async (k: string, f: () => Promise<unknown>) => { const t0 = performance.now(); await f(); (times[k] ??= []).push(performance.now() - t0); };
// warm up with 20k rows
for (let i = 0; i < 20; i++) await variants.jsonb(Array.from({ length: N }, row));
for (let r = 0; r < 12; r++) {
  for (const k of Object.keys(variants)) await t(`insert ${k}`, () => variants[k]!(Array.from({ length: N }, row)));
}
const all = (await c.query<{ id: string }>('select id from messages where pending = 1 order by id')).rows.map((r) => r.id);
let at = 0;
for (let r = 0; r < 8; r++) {
  for (const k of Object.keys(upd)) { const ids = all.slice(at, at + N); at += N; await t(`update ${k}`, () => upd[k]!(ids)); }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (const [k, a] of Object.entries(times)) console.log(k.padEnd(16), 'median', med(a).toFixed(1), 'min', Math.min(...a).toFixed(1));
await c.end();
