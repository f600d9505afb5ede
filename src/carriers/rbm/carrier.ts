import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { request } from 'undici';
import { contentItems } from '../../content/walk.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { Logger } from '../../platform/logger.js';
import { sendEach, type Capability, type CarrierEvent, type CarrierEventSink, type OutboundRcs, type RcsCarrier, type SendOutcome } from '../carrier.js';
import type { SenderDirectory, SenderEntry } from '../sender-config.js';
import { RbmAuthError, ServiceAccountTokenSource } from './auth.js';
import { decodePostback, toRbmAgentMessage } from './translate.js';
import { isRecord } from '../../platform/guards.js';

export interface RbmAgent {
  agentId: string;
  serviceAccountFile: string;
  /** The webhook's client token: verifies X-Goog-Signature and answers the handshake. */
  clientToken: string;
}

export interface RbmOptions {
  /** API root without trailing slash: Google's global endpoint or a regional one. */
  endpoint: string;
  /** The agent of senders without an override. */
  agent: RbmAgent;
  /** Per HTTP call. */
  timeoutMs?: number;
  /** Hand-overs in flight at once in sendMany. */
  concurrency?: number;
  /**
   * How long a webhook call keeps offering receipts the engine cannot apply yet (the receipt
   * overtook the record of the hand-over) before answering 503 so that Google delivers it again.
   */
  webhookApplyTimeoutMs?: number;
  /** How long a capability answer is reused for the same agent and number. */
  capabilityCacheMs?: number;
}

/** What the webhook route answers. */
export interface WebhookAnswer {
  status: number;
  contentType: 'text/plain' | 'application/json';
  body: string;
}

type OkOrFailure = { ok: true; status: number; json: unknown } | { ok: false; outcome: Extract<SendOutcome, { ok: false }>; status: number };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** RBM reports agent ids as `name@rbm.goog` in events and takes the bare id in URLs. */
const bareAgentId = (id: string) => id.replace(/@rbm\.goog$/i, '');

/**
 * Google RCS Business Messaging (REST v1). Sends with our message id as RBM's messageId, so a
 * second hand-over of the same message is answered 409 ALREADY_EXISTS and counts as success;
 * receives delivery/read events, user messages and chip taps on the signed webhook
 * (POST /webhooks/rbm, see handleWebhook).
 */
export class RbmCarrier implements RcsCarrier {
  readonly name = 'rbm';
  private sink: CarrierEventSink | null = null;
  private readonly tokens = new Map<string, ServiceAccountTokenSource>();
  private readonly capabilities = new Map<string, { at: number; value: Capability }>();
  private readonly timeoutMs: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: RbmOptions,
    private readonly senders: SenderDirectory,
  ) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** Checks the configured service-account file (a broken one stops the start, naming it) and takes events from now on. */
  async start(sink: CarrierEventSink): Promise<void> {
    try {
      await this.tokenSource(this.options.agent.serviceAccountFile).check();
    } catch (err) {
      throw new Error(`RBM_SERVICE_ACCOUNT_FILE: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.sink = sink;
  }

  async stop(): Promise<void> {
    this.sink = null;
  }

  /** The agent a sender sends as: its override, else the configured one. */
  async agentFor(senderId: string): Promise<RbmAgent> {
    const sender = await this.senders.get(senderId);
    const o = sender?.config.rbm;
    if (!o) return this.options.agent;
    return { agentId: o.agentId, serviceAccountFile: o.serviceAccountFile ?? this.options.agent.serviceAccountFile, clientToken: o.clientToken ?? this.options.agent.clientToken };
  }

  async capability(to: string, senderId: string): Promise<Capability> {
    const agent = await this.agentFor(senderId);
    const key = `${agent.agentId}|${to}`;
    const cached = this.capabilities.get(key);
    const now = this.clock.now();
    if (cached && now - cached.at < (this.options.capabilityCacheMs ?? 5 * 60_000)) return cached.value;
    const r = await this.call(agent, 'GET', `/v1/phones/${to}/capabilities`, { requestId: randomUUID() });
    let value: Capability;
    if (r.ok) value = { rcs: true };
    else if (r.status === 404) value = { rcs: false, reason: 'RCS_NOT_SUPPORTED' };
    else {
      // Not an answer about the number (throttled, down, misconfigured): let the send decide,
      // its outcome is retried or falls back with the carrier's code.
      this.logger.warn({ code: r.outcome.code, reason: r.outcome.reason }, 'RBM capability check failed; trying to send');
      return { rcs: true };
    }
    if (this.capabilities.size > 50_000) this.capabilities.clear();
    this.capabilities.set(key, { at: now, value });
    return value;
  }

  async send(m: OutboundRcs): Promise<SendOutcome> {
    const agent = await this.agentFor(m.senderId);
    const r = await this.call(agent, 'POST', `/v1/phones/${m.to}/agentMessages`, { messageId: m.messageId }, toRbmAgentMessage(m.messageType, m.content));
    const fallbackName = `phones/${m.to}/agentMessages/${m.messageId}`;
    if (r.ok) return { ok: true, carrierMessageId: (isRecord(r.json) && str(r.json.name)) || fallbackName };
    // The same messageId again: RBM already has the message (an earlier hand-over whose answer we lost).
    if (r.status === 409) return { ok: true, carrierMessageId: fallbackName };
    return r.outcome;
  }

  sendMany(messages: readonly OutboundRcs[]): Promise<SendOutcome[]> {
    return sendEach(messages, (m) => this.send(m), this.options.concurrency ?? 16);
  }

  /** DELETE …/agentMessages/{id}: true when RBM withdrew it, false when delivered already or unknown. */
  async revoke(message: { messageId: string; to: string; senderId: string }): Promise<boolean> {
    const agent = await this.agentFor(message.senderId);
    const r = await this.call(agent, 'DELETE', `/v1/phones/${message.to}/agentMessages/${encodeURIComponent(message.messageId)}`, {});
    if (r.ok) return true;
    if (r.status === 404) return false;
    throw new Error(`RBM revoke failed: ${r.outcome.code}: ${r.outcome.reason}`);
  }

  /** One authorized call; a 401 refreshes the token and tries once more. */
  private async call(agent: RbmAgent, method: 'GET' | 'POST' | 'DELETE', path: string, query: Record<string, string>, body?: unknown): Promise<OkOrFailure> {
    const url = new URL(`${this.options.endpoint}${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    url.searchParams.set('agentId', bareAgentId(agent.agentId));
    const tokens = this.tokenSource(agent.serviceAccountFile);
    for (let attempt = 0; ; attempt++) {
      let token: string;
      try {
        token = await tokens.token();
      } catch (err) {
        const retryable = err instanceof RbmAuthError ? err.retryable : true;
        return { ok: false, status: 0, outcome: { ok: false, retryable, code: 'RBM_AUTH', reason: err instanceof Error ? err.message : String(err) } };
      }
      let res;
      try {
        res = await request(url, {
          method,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
      } catch (err) {
        return { ok: false, status: 0, outcome: { ok: false, retryable: true, code: 'RBM_NETWORK', reason: err instanceof Error ? err.message : String(err) } };
      }
      const text = await res.body.text();
      const json = parseJson(text);
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, status: res.statusCode, json };
      if (res.statusCode === 401 && attempt === 0) {
        tokens.invalidate();
        continue;
      }
      return { ok: false, status: res.statusCode, outcome: failureOf(res.statusCode, json, text) };
    }
  }

  private tokenSource(file: string): ServiceAccountTokenSource {
    let t = this.tokens.get(file);
    if (!t) this.tokens.set(file, (t = new ServiceAccountTokenSource(file, () => this.clock.now(), this.timeoutMs)));
    return t;
  }

  // ---- inbound: the webhook -------------------------------------------------------------------

  /** Every client token a webhook call may be signed with (default agent and overrides). */
  private async clientTokens(): Promise<string[]> {
    const set = new Set<string>([this.options.agent.clientToken]);
    for (const s of await this.senders.all()) if (s.config.rbm?.clientToken) set.add(s.config.rbm.clientToken);
    return [...set];
  }

  /**
   * One call of Google's webhook. The handshake (`{clientToken, secret}`) is answered with the
   * secret when the client token is ours. Messages (`{message: {data}}`) must carry
   * X-Goog-Signature = base64(HMAC-SHA512(clientToken, base64-decoded message.data)); their
   * events go to the engine, and the answer is 200 only once the engine applied them (else 503,
   * and Google delivers the call again).
   */
  async handleWebhook(body: unknown, signature: string | undefined): Promise<WebhookAnswer> {
    const tokens = await this.clientTokens();
    if (isRecord(body) && typeof body.clientToken === 'string' && typeof body.secret === 'string' && !isRecord(body.message)) {
      if (!tokens.some((t) => safeEqual(t, body.clientToken as string))) return answer(403, { error: 'unknown clientToken' });
      return { status: 200, contentType: 'text/plain', body: body.secret };
    }
    const data = isRecord(body) && isRecord(body.message) ? body.message.data : undefined;
    if (typeof data !== 'string' || data === '') return answer(400, { error: 'message.data missing' });
    const decoded = Buffer.from(data, 'base64');
    if (!signature || !tokens.some((t) => safeEqual(createHmac('sha512', t).update(decoded).digest('base64'), signature.trim()))) {
      this.logger.warn('RBM webhook call with a missing or wrong X-Goog-Signature refused');
      return answer(401, { error: 'bad signature' });
    }
    const payload = parseJson(decoded.toString('utf8'));
    if (!isRecord(payload)) return answer(400, { error: 'message.data is not JSON' });
    const sink = this.sink;
    if (!sink) return answer(503, { error: 'not ready' });
    const events = await this.eventsOf(payload);
    if (events.length === 0) return answer(200, { ok: true });
    return (await this.deliver(sink, events)) ? answer(200, { ok: true }) : answer(503, { error: 'try again' });
  }

  /** Offers events until the engine applied them all or the time is up. */
  private async deliver(sink: CarrierEventSink, events: CarrierEvent[]): Promise<boolean> {
    const deadline = Date.now() + (this.options.webhookApplyTimeoutMs ?? 10_000);
    let pending = events;
    let delay = 25;
    for (;;) {
      const applied = await sink(pending);
      pending = pending.filter((_, i) => applied[i] === false);
      if (pending.length === 0) return true;
      if (Date.now() + delay > deadline) return false;
      await sleep(delay);
      delay = Math.min(delay * 2, 1000);
    }
  }

  /** A decoded RBM user event or message → our carrier events (none for typing indicators). */
  async eventsOf(p: Record<string, unknown>): Promise<CarrierEvent[]> {
    const sent = Date.parse(str(p.sendTime) ?? '');
    const at = Number.isFinite(sent) ? sent : this.clock.now();
    const eventType = str(p.eventType);
    if (eventType !== undefined) {
      const messageId = str(p.messageId);
      if (!messageId) return [];
      if (eventType === 'DELIVERED' || eventType === 'READ') return [{ kind: 'status', messageId, status: eventType, at }];
      return []; // IS_TYPING and anything newer
    }
    const phone = str(p.senderPhoneNumber);
    if (!phone) return [];
    const e164 = phone.startsWith('+') ? phone : `+${phone}`;
    const digits = e164.slice(1);
    const sender = await this.senderOf(str(p.agentId), digits);
    if (!sender) {
      this.logger.warn({ agentId: p.agentId }, 'RBM message for an agent without a sender ignored');
      return [];
    }
    const carrierMessageId = str(p.messageId) ?? `rbm_${randomUUID()}`;
    const inbound = (text: string, unsubscribeChip = false): CarrierEvent => ({ kind: 'inbound', channel: 'RCS', from: e164, senderId: sender.id, text, at, carrierMessageId, ...(unsubscribeChip ? { unsubscribeChip } : {}) });

    if (isRecord(p.suggestionResponse)) {
      const r = p.suggestionResponse;
      const label = str(r.text) ?? '';
      const decoded = decodePostback(str(r.postbackData));
      const events: CarrierEvent[] = [];
      const original = await this.answeredMessage(sender, digits, decoded.postbackData, label);
      if (original) {
        let type = decoded.kind;
        if (type === null) type = r.type === 'ACTION' ? 'action' : isCardPostback(original.content, decoded.postbackData, label) ? 'postback' : 'reply';
        events.push({ kind: 'interaction', type, messageId: original.id, from: e164, senderId: sender.id, buttonText: label, postbackData: decoded.postbackData, at });
      }
      // The unsubscribe chip stands for its stop keyword; a tap on a message we cannot find
      // still reaches the inbound path as the words the person sent.
      if (decoded.unsubscribeKeyword !== null) events.push(inbound(decoded.unsubscribeKeyword, true));
      else if (!original) events.push(inbound(label));
      return events;
    }
    if (typeof p.text === 'string') return [inbound(p.text)];
    if (isRecord(p.location) && typeof p.location.latitude === 'number' && typeof p.location.longitude === 'number') {
      return [inbound(`geo:${p.location.latitude},${p.location.longitude}`)];
    }
    if (isRecord(p.userFile)) {
      const payload = isRecord(p.userFile.payload) ? p.userFile.payload : {};
      return [inbound(str(payload.fileUri) ?? '[file]')];
    }
    return [];
  }

  /** Our sender behind an RBM agent id: senders with that agent as override, else those on the default agent. */
  private async senderOf(agentId: string | undefined, digits: string): Promise<SenderEntry | null> {
    const rcs = (await this.senders.all()).filter((s) => s.type === 'RCS');
    const wanted = agentId ? bareAgentId(agentId) : null;
    let candidates = wanted ? rcs.filter((s) => s.config.rbm && bareAgentId(s.config.rbm.agentId) === wanted) : [];
    if (candidates.length === 0 && (wanted === null || wanted === bareAgentId(this.options.agent.agentId))) candidates = rcs.filter((s) => !s.config.rbm);
    return this.senders.attribute(candidates, digits);
  }

  /**
   * The message a chip tap answers: RBM does not say, so it is our latest RCS message from that
   * sender to that number whose content has the tapped chip (by postbackData, else label), else
   * simply the latest one.
   */
  private async answeredMessage(sender: SenderEntry, digits: string, postbackData: string | null, label: string): Promise<{ id: string; content: string | null } | null> {
    const rows = await this.db
      .selectFrom('messages')
      .select(['id', 'content'])
      // The account too: no index starts with the sender, and without it every tap read the whole table.
      .where('account_id', '=', sender.accountId)
      .where('sendername_id', '=', sender.id)
      .where('phone', '=', digits)
      .where('direction', '=', 'OUTBOUND')
      .where('method', '=', 'RCS')
      .orderBy('created_at', 'desc')
      .limit(20)
      .execute();
    if (rows.length === 0) return null;
    const needle = postbackData !== null ? `"postbackData":${JSON.stringify(postbackData)}` : `"text":${JSON.stringify(label)}`;
    return rows.find((r) => r.content?.includes(needle)) ?? rows[0]!;
  }
}

/** Whether the tapped reply is a postback button on a card of this content. */
function isCardPostback(content: string | null, postbackData: string | null, label: string): boolean {
  const c = parseJson(content ?? '');
  if (!isRecord(c)) return false;
  return contentItems(c).some(
    (i) => i.kind === 'button' && i.placement === 'cardButton' && i.action.type === 'postback' && (postbackData !== null ? i.action.postbackData === postbackData : i.action.text === label),
  );
}

/** RBM's error answer → our outcome: `RBM_<http status>_<google status>`, 429 and 5xx retried. */
export function failureOf(status: number, json: unknown, text: string): Extract<SendOutcome, { ok: false }> {
  const err = isRecord(json) && isRecord(json.error) ? json.error : null;
  const googleStatus = err ? str(err.status) : undefined;
  const message = (err ? str(err.message) : undefined) ?? (text.slice(0, 200) || `HTTP ${status}`);
  const retryable = status === 408 || status === 429 || status >= 500;
  return { ok: false, retryable, code: `RBM_${status}${googleStatus ? `_${googleStatus}` : ''}`, reason: message };
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function answer(status: number, body: Record<string, unknown>): WebhookAnswer {
  return { status, contentType: 'application/json', body: JSON.stringify(body) };
}
