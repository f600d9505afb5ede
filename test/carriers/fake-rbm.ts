/**
 * A stand-in for Google's RBM platform on 127.0.0.1: the OAuth token endpoint (verifies the
 * service account's RS256 assertion with its public key), the v1 REST API (capabilities,
 * agentMessages create/delete) with request-shape checks, and a signer for webhook calls.
 */
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';

export const SCOPE = 'https://www.googleapis.com/auth/rcsbusinessmessaging';

export interface StoredAgentMessage {
  phone: string;
  messageId: string;
  agentId: string;
  body: { contentMessage: Record<string, unknown> };
  token: string;
}

export interface FakeRbm {
  url: string;
  agentId: string;
  /** Agents this partner may send as (agentId plus any added by a test). */
  agentIds: Set<string>;
  clientEmail: string;
  serviceAccountFile: string;
  /** Messages accepted, by messageId (a second create of the same id is a 409). */
  messages: Map<string, StoredAgentMessage>;
  /** Every request as seen: method, path, query, authorization. */
  requests: Array<{ method: string; path: string; query: Record<string, string>; authorization: string | undefined }>;
  tokenExchanges: number;
  /** Numbers without RCS: capability and send answer 404. */
  nonRcs: Set<string>;
  /** Answers forced for the next create calls of a phone (status codes), consumed in order. */
  failNext: Map<string, number[]>;
  /** Store the message, then answer this status anyway (a lost answer). */
  storeThenFail: Map<string, number>;
  /** Problems with request shapes seen by the fake (should stay empty). */
  problems: string[];
  /** Access tokens the fake accepts; clear it to make RBM answer 401. */
  validTokens: Set<string>;
  tokenLifetimeSeconds: number;
  close(): Promise<void>;
}

export async function startFakeRbm(opts: { agentId?: string } = {}): Promise<FakeRbm> {
  const agentId = opts.agentId ?? 'acme_promo_agent';
  const clientEmail = 'rbm-agent@acme-rbm.iam.gserviceaccount.com';
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-rbm-'));
  const serviceAccountFile = path.join(dir, 'service-account.json');

  const state: Omit<FakeRbm, 'url' | 'close' | 'serviceAccountFile'> = {
    agentId,
    agentIds: new Set([agentId]),
    clientEmail,
    messages: new Map(),
    requests: [],
    tokenExchanges: 0,
    nonRcs: new Set(),
    failNext: new Map(),
    storeThenFail: new Map(),
    problems: [],
    validTokens: new Set(),
    tokenLifetimeSeconds: 3600,
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, Buffer.concat(chunks).toString('utf8'), res, state, publicKey, tokenUri()).catch((err: unknown) => {
        state.problems.push(`fake crashed: ${String(err)}`);
        res.writeHead(500).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokenUri = () => `${url}/token`;
  fs.writeFileSync(
    serviceAccountFile,
    JSON.stringify({
      type: 'service_account',
      project_id: 'acme-rbm',
      private_key_id: 'key-1',
      private_key: await exportPKCS8(privateKey),
      client_email: clientEmail,
      client_id: '1234567890',
      token_uri: tokenUri(),
    }),
  );
  return Object.assign(state, {
    url,
    serviceAccountFile,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  }) satisfies FakeRbm;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const googleError = (code: number, status: string, message: string) => ({ error: { code, message, status } });

async function handle(req: http.IncomingMessage, raw: string, res: http.ServerResponse, s: Omit<FakeRbm, 'url' | 'close' | 'serviceAccountFile'>, publicKey: CryptoKey, tokenUri: string): Promise<void> {
  const u = new URL(req.url ?? '/', 'http://fake');
  const query = Object.fromEntries(u.searchParams);
  s.requests.push({ method: req.method ?? '', path: decodeURIComponent(u.pathname), query, authorization: req.headers.authorization });

  if (u.pathname === '/token' && req.method === 'POST') {
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) s.problems.push('token: wrong content-type');
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return json(res, 400, { error: 'unsupported_grant_type' });
    try {
      const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', publicKey, { issuer: s.clientEmail, audience: tokenUri, algorithms: ['RS256'] });
      if (payload.scope !== SCOPE) throw new Error(`scope ${String(payload.scope)}`);
      if (protectedHeader.kid !== 'key-1') throw new Error('kid');
      if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number' || payload.exp - payload.iat > 3600) throw new Error('lifetime');
    } catch (err) {
      s.problems.push(`token: bad assertion (${String(err)})`);
      return json(res, 400, { error: 'invalid_grant' });
    }
    s.tokenExchanges++;
    const token = `ya29.fake-${randomUUID()}`;
    s.validTokens.add(token);
    return json(res, 200, { access_token: token, expires_in: s.tokenLifetimeSeconds, token_type: 'Bearer' });
  }

  const auth = req.headers.authorization ?? '';
  const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
  if (!s.validTokens.has(token)) return json(res, 401, googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'));
  if (!s.agentIds.has(query.agentId ?? '')) s.problems.push(`${u.pathname}: agentId ${query.agentId}`);

  const path = decodeURIComponent(u.pathname);
  let m = /^\/v1\/phones\/(\+\d{6,16})\/capabilities$/.exec(path);
  if (m && req.method === 'GET') {
    if (!query.requestId) s.problems.push('capabilities: no requestId');
    if (s.nonRcs.has(m[1]!)) return json(res, 404, googleError(404, 'NOT_FOUND', 'Requested entity was not found.'));
    return json(res, 200, { features: ['RICHCARD_STANDALONE', 'RICHCARD_CAROUSEL', 'ACTION_CREATE_CALENDAR_EVENT', 'ACTION_DIAL', 'ACTION_OPEN_URL', 'ACTION_SHARE_LOCATION', 'ACTION_VIEW_LOCATION'] });
  }
  m = /^\/v1\/phones\/(\+\d{6,16})\/agentMessages$/.exec(path);
  if (m && req.method === 'POST') {
    const phone = m[1]!;
    const messageId = query.messageId;
    if (!messageId) return json(res, 400, googleError(400, 'INVALID_ARGUMENT', 'messageId is required'));
    if (req.headers['content-type'] !== 'application/json') s.problems.push('agentMessages: content-type');
    let body: StoredAgentMessage['body'];
    try {
      body = JSON.parse(raw) as StoredAgentMessage['body'];
    } catch {
      return json(res, 400, googleError(400, 'INVALID_ARGUMENT', 'bad JSON'));
    }
    if (typeof body.contentMessage !== 'object' || body.contentMessage === null) return json(res, 400, googleError(400, 'INVALID_ARGUMENT', 'contentMessage is required'));
    const forced = s.failNext.get(phone);
    if (forced && forced.length > 0) {
      const code = forced.shift()!;
      return json(res, code, googleError(code, code === 429 ? 'RESOURCE_EXHAUSTED' : code >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT', 'forced by the test'));
    }
    if (s.nonRcs.has(phone)) return json(res, 404, googleError(404, 'NOT_FOUND', 'Requested entity was not found.'));
    if (s.messages.has(messageId)) return json(res, 409, googleError(409, 'ALREADY_EXISTS', `Message ${messageId} already exists`));
    s.messages.set(messageId, { phone, messageId, agentId: query.agentId ?? '', body, token });
    const lost = s.storeThenFail.get(phone);
    if (lost) {
      s.storeThenFail.delete(phone);
      return json(res, lost, googleError(lost, 'UNAVAILABLE', 'answer lost'));
    }
    return json(res, 200, { name: `phones/${phone}/agentMessages/${messageId}`, sendTime: new Date().toISOString(), contentMessage: body.contentMessage });
  }
  m = /^\/v1\/phones\/(\+\d{6,16})\/agentMessages\/([^/]+)$/.exec(path);
  if (m && req.method === 'DELETE') {
    const stored = s.messages.get(m[2]!);
    if (!stored || stored.phone !== m[1]) return json(res, 404, googleError(404, 'NOT_FOUND', 'Requested entity was not found.'));
    s.messages.delete(m[2]!);
    return json(res, 200, {});
  }
  return json(res, 404, googleError(404, 'NOT_FOUND', `no route ${req.method} ${path}`));
}

/** A webhook call as Google makes it: Pub/Sub-style envelope, base64 data, X-Goog-Signature. */
export function signedCallback(payload: Record<string, unknown>, clientToken: string): { body: Record<string, unknown>; signature: string } {
  const data = Buffer.from(JSON.stringify(payload), 'utf8');
  return {
    body: { message: { attributes: { message_type: payload.eventType ? 'event' : 'message' }, data: data.toString('base64'), messageId: randomUUID(), publishTime: new Date().toISOString() }, subscription: 'projects/rbm-acme/subscriptions/rbm-agent' },
    signature: createHmac('sha512', clientToken).update(data).digest('base64'),
  };
}
