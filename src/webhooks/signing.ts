import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header every webhook request carries (spec §5.5). */
export const SIGNATURE_HEADER = 'X-RCS-Signature';
export const EVENT_ID_HEADER = 'X-RCS-Event-Id';
export const EVENT_TYPE_HEADER = 'X-RCS-Event';
export const DELIVERY_ID_HEADER = 'X-RCS-Delivery-Id';
export const ATTEMPT_HEADER = 'X-RCS-Delivery-Attempt';
export const WEBHOOK_ID_HEADER = 'X-RCS-Webhook-Id';

/** Hex HMAC-SHA256 with the secret over `t` + "." + the raw body bytes. */
export function computeSignature(secret: string, t: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/**
 * `t=<unix seconds>,v1=<hex>` — during a secret rotation one `v1` per valid secret, the newest
 * first, so receivers that know either secret accept the request.
 */
export function signatureHeader(secrets: readonly string[], t: number, body: string | Buffer): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${computeSignature(s, t, body)}`)].join(',');
}

export interface ParsedSignature {
  t: number;
  v1: string[];
}

export function parseSignatureHeader(header: string): ParsedSignature | null {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/i.test(v)) v1.push(v.toLowerCase());
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

/**
 * The documented verification (docs/webhooks.md): recompute the HMAC over `t.rawBody`, compare in
 * constant time with every v1, and (optionally) refuse a t too far from now.
 */
export function verifySignature(header: string | null | undefined, rawBody: string | Buffer, secret: string, opts: { toleranceSeconds?: number; nowSeconds?: number } = {}): boolean {
  if (!header) return false;
  const parsed = parseSignatureHeader(header);
  if (!parsed) return false;
  if (opts.toleranceSeconds !== undefined) {
    const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
    if (Math.abs(now - parsed.t) > opts.toleranceSeconds) return false;
  }
  const expected = Buffer.from(computeSignature(secret, parsed.t, rawBody), 'hex');
  return parsed.v1.some((v) => {
    const got = Buffer.from(v, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
