import type { TestServer } from '../../helpers/server.js';

let n = 0;

/**
 * A fresh client address per call. The sandbox test servers run with TRUST_PROXY=true, so
 * X-Forwarded-For decides the address the rate limiter counts; each test uses its own.
 */
export function freshIp(): string {
  n++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

export type SandboxCall = (method: string, path: string, body?: unknown, opts?: { ip?: string; rawBody?: string }) => ReturnType<TestServer['api']>;

/** Unauthenticated calls to {base_url}/sandbox… from the given (or a fresh) address. */
export function sandboxClient(t: TestServer, defaultIp: string = freshIp()): SandboxCall {
  return (method, path, body, opts = {}) =>
    t.api(method, `/api/rcs/sandbox${path}`, body, {
      key: null,
      headers: { 'X-Forwarded-For': opts.ip ?? defaultIp },
      ...(opts.rawBody !== undefined ? { rawBody: opts.rawBody } : {}),
    });
}
