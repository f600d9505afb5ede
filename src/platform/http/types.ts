import type { Principal } from '../permissions.js';

declare global {
  // Express's own extension point; the augmentation is how its Request gets our fields.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by the request logger for every request. */
      requestId: string;
      /** Set by requireAuth on authenticated routes. */
      principal?: Principal;
      /** Why a request was refused, in a few words, for its one log line (no stack: the caller's mistake, not ours). */
      logNote?: string;
    }
  }
}

export {};
