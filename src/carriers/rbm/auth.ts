import fs from 'node:fs/promises';
import { importPKCS8, SignJWT } from 'jose';
import { request } from 'undici';
import { z } from 'zod';

export const RBM_SCOPE = 'https://www.googleapis.com/auth/rcsbusinessmessaging';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** The fields of a Google service-account key file we use. */
const ServiceAccountSchema = z.object({
  type: z.literal('service_account').optional(),
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  private_key_id: z.string().optional(),
  token_uri: z.url().optional(),
});

export class RbmAuthError extends Error {
  constructor(
    message: string,
    /** Worth trying again later (token endpoint down or throttled). */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'RbmAuthError';
  }
}

interface CachedToken {
  token: string;
  /** Epoch ms after which the token is not used any more (a margin before its real expiry). */
  refreshAt: number;
}

/**
 * OAuth 2.0 for a Google service account (RFC 7523): a JWT assertion signed RS256 with the key
 * from the service-account file, exchanged at its token URI for an access token. The token is
 * cached and replaced five minutes before it expires (or when RBM answers 401); concurrent callers
 * share one exchange.
 */
export class ServiceAccountTokenSource {
  private cached: CachedToken | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly file: string,
    private readonly now: () => number = Date.now,
    private readonly timeoutMs = 10_000,
  ) {}

  async token(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return this.cached.token;
    this.pending ??= this.exchange().finally(() => (this.pending = null));
    return this.pending;
  }

  /** Reads the key file and imports the key, so a broken file is reported at start-up, not at the first send. */
  async check(): Promise<void> {
    const account = await this.readAccount();
    try {
      await importPKCS8(account.private_key, 'RS256');
    } catch (err) {
      throw new RbmAuthError(`The private_key of ${this.file} is not an RSA PKCS#8 key: ${err instanceof Error ? err.message : String(err)}`, false);
    }
  }

  /** Forget the cached token (RBM rejected it). */
  invalidate(): void {
    this.cached = null;
  }

  private async readAccount(): Promise<z.infer<typeof ServiceAccountSchema>> {
    try {
      return ServiceAccountSchema.parse(JSON.parse(await fs.readFile(this.file, 'utf8')));
    } catch (err) {
      throw new RbmAuthError(`Cannot read the RBM service account file ${this.file}: ${err instanceof Error ? err.message : String(err)}`, false);
    }
  }

  private async exchange(): Promise<string> {
    const account = await this.readAccount();
    const tokenUri = account.token_uri ?? GOOGLE_TOKEN_URI;
    const iat = Math.floor(this.now() / 1000);
    let assertion: string;
    try {
      const key = await importPKCS8(account.private_key, 'RS256');
      assertion = await new SignJWT({ scope: RBM_SCOPE })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.private_key_id ? { kid: account.private_key_id } : {}) })
        .setIssuer(account.client_email)
        .setAudience(tokenUri)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 3600)
        .sign(key);
    } catch (err) {
      throw new RbmAuthError(`Cannot sign with the RBM service account key: ${err instanceof Error ? err.message : String(err)}`, false);
    }
    let res;
    try {
      res = await request(tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (err) {
      throw new RbmAuthError(`RBM token endpoint unreachable: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) {
      const retryable = res.statusCode === 429 || res.statusCode >= 500;
      throw new RbmAuthError(`RBM token endpoint answered ${res.statusCode}: ${text.slice(0, 300)}`, retryable);
    }
    const body = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive().optional() }).safeParse(safeJson(text));
    if (!body.success) throw new RbmAuthError('RBM token endpoint answered without an access_token', true);
    const lifetimeMs = (body.data.expires_in ?? 3600) * 1000;
    // Refresh five minutes early (or at half the lifetime for very short tokens).
    const margin = Math.min(5 * 60_000, lifetimeMs / 2);
    this.cached = { token: body.data.access_token, refreshAt: this.now() + lifetimeMs - margin };
    return body.data.access_token;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
