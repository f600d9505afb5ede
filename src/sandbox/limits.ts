/** Limits of the no-account sandbox (spec §4.2). */
export const SANDBOX_REQUESTS_PER_MINUTE = 20;
export const SANDBOX_REQUESTS_PER_DAY = 100;
export const SANDBOX_PREVIEW_TTL_MS = 24 * 60 * 60 * 1000;
export const SANDBOX_CONTENT_MAX_BYTES = 256_000;
