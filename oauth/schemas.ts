import type { Permission } from '../src/platform/permissions.js';

/** One client a person of the account has authorized, with its live (unexpired, unrevoked) tokens. */
export interface ConnectedApp {
  clientId: string;
  clientName: string | null;
  kind: 'registered' | 'metadata_document';
  userId: string;
  userEmail: string;
  /** Union of the scopes of the live tokens. */
  scopes: Permission[];
  activeTokens: number;
  lastAuthorizedAt: number;
  lastUsedAt: number | null;
  /** Expiry of the newest token. */
  expiresAt: number;
}
