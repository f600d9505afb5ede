import type { Agent } from 'undici';
import { guardedLookup } from './network-guard.js';

export { assertPublicHost, BlockedAddressError, guardedLookup, isPrivateAddress } from './network-guard.js';

/** Longest outbound URL we accept (the spec's media/URL limit). */
export const OUTBOUND_URL_MAX_LENGTH = 2000;

/**
 * Whether a URL may be the target of an outbound request of this product (webhooks, and any
 * future fetch of a URL a customer names): absolute, https (plain http only when
 * DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS is on), no user info, no fragment. Returns the problem
 * in words, or null. The address check happens separately, after DNS resolution, at connect time.
 */
export function outboundUrlProblem(raw: string, allowPrivateNetwork: boolean): string | null {
  if (raw.length > OUTBOUND_URL_MAX_LENGTH) return `URL is longer than ${OUTBOUND_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid absolute URL';
  }
  if (url.protocol === 'http:') {
    if (!allowPrivateNetwork) return 'URL must use https (plain http is allowed only with DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS=true)';
  } else if (url.protocol !== 'https:') {
    return 'URL must use https';
  }
  if (url.username || url.password) return 'URL must not contain user info';
  if (url.hash || raw.includes('#')) return 'URL must not contain a fragment';
  if (!url.hostname) return 'URL has no host';
  return null;
}

export interface GuardedAgentOptions {
  /** DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS. */
  allowPrivateNetwork: boolean;
  /** Connect, headers and body timeout each. */
  timeoutMs: number;
  /** Largest response undici will read; omitted: no cap (the caller reads what it needs and stops). */
  maxResponseBytes?: number;
}

const agents = new Map<string, Agent>();

/**
 * An undici dispatcher whose connections go only to public addresses (checked on the addresses
 * DNS returned, at every connect: rebinding-safe), with timeouts and a response size cap.
 * Redirects are never followed (undici's `request` does not follow them without an interceptor).
 * undici is loaded on first use, so servers that never fetch anything do not pay for it at start.
 */
export async function guardedAgent(opts: GuardedAgentOptions): Promise<Agent> {
  const key = `${opts.allowPrivateNetwork}|${opts.timeoutMs}|${opts.maxResponseBytes ?? -1}`;
  let agent = agents.get(key);
  if (!agent) {
    const { Agent: UndiciAgent } = await import('undici');
    agent = new UndiciAgent({
      connect: { lookup: guardedLookup(opts.allowPrivateNetwork), timeout: opts.timeoutMs },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      maxResponseSize: opts.maxResponseBytes ?? -1,
      keepAliveTimeout: 4_000,
      connections: 64,
    });
    agents.set(key, agent);
  }
  return agent;
}
