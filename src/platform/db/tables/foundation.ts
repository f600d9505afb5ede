/**
 * The platform's own tables (issue #32): settings (src/platform/settings.ts) and the shared rate-limit counters
 * (src/platform/http/rate-limit-store.ts). Each area's tables live in its folder (src/<area>/tables.ts) and join the
 * Database type of ../schema.ts by augmenting it.
 */

/** Hit counters of the express-rate-limit limiters (platform/http/rate-limit-store.ts): one fixed window per row. */
export interface RateLimitHitsTable {
  /** HMAC-SHA-256 (hex) of "<limiter>|<client key>" under the settings key rate_limit.key_hash_key: no addresses in the clear. */
  key: string;
  hits: number;
  /** When the window ends (epoch ms); the next hit after it starts a new window at 1. */
  reset_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface FoundationTables {
  rate_limit_hits: RateLimitHitsTable;
  settings: SettingsTable;
}
