import type { Sealer } from './sealing.js';

/**
 * The per-message links whose token is a credential: the unsubscribe link (`/u/<token>`, spec
 * §2.13 rule 4) and a form's opt-in confirmation link (`/f/confirm/<token>`, §3.6). The token is
 * derived from the message id with a key that is not in the database (HMAC under the sealing key,
 * src/platform/sealing.ts), so nothing needs to store it in the clear: message rows, the log, the
 * previews and the simulated network keep the link masked, and the dispatcher puts the token back
 * at the moment it hands the message to a carrier. The lookup tables keep only its SHA-256, as
 * before. docs/storage.md "Link tokens".
 */
export type LinkKind = 'unsubscribe' | 'optin';

const PATHS: Record<LinkKind, string> = { unsubscribe: '/u/', optin: '/f/confirm/' };
const TOKEN_LENGTH = 32;
/**
 * As long as a token and made of a GSM-7 basic character, as a token is (base64url): the masked
 * text has the same length, encoding and SMS segments as the text the recipient gets, so pricing,
 * segment counts and the log's figures computed on the stored text stay exact.
 */
export const LINK_MASK = '*'.repeat(TOKEN_LENGTH);
const MASKED = /(\/u\/|\/f\/confirm\/)\*{32}(?!\*)/g;

/** Tokens remembered: one batch's worth, so accept, hand-over and the simulated store compute each once. */
const CACHE_LIMIT = 20_000;

export class LinkTokens {
  private readonly cache = new Map<string, string>();

  constructor(private readonly sealer: Sealer) {}

  /** The token of `kind` for one message: 32 base64url characters (192 bits). */
  token(kind: LinkKind, messageId: string): string {
    const key = `${kind}:${messageId}`;
    let token = this.cache.get(key);
    if (token === undefined) {
      token = this.sealer.mac(`link:${kind}`, messageId).slice(0, TOKEN_LENGTH);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, token);
    }
    return token;
  }

  /** The link as stored and shown: the path with the token masked. */
  maskedUrl(publicUrl: string, kind: LinkKind): string {
    return `${publicUrl}${PATHS[kind]}${LINK_MASK}`;
  }

  /** The text the recipient gets. Text without a masked link is returned as is after one `includes`. */
  reveal(text: string, messageId: string): string {
    if (!text.includes(LINK_MASK)) return text;
    return text.replace(MASKED, (_m, p: string) => p + this.token(p === PATHS.unsubscribe ? 'unsubscribe' : 'optin', messageId));
  }

  /** The reverse of reveal, for text the carrier side keeps (the simulated network's store). */
  mask(text: string, messageId: string): string {
    let out = text;
    for (const kind of ['unsubscribe', 'optin'] as const) {
      if (!out.includes(PATHS[kind])) continue;
      out = out.split(PATHS[kind] + this.token(kind, messageId)).join(PATHS[kind] + LINK_MASK);
    }
    return out;
  }
}
