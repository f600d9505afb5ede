import { z } from 'zod';

/** Spec §5.2 plus messages:read and messages:write (DESIGN §4). OAuth scopes are the same strings. */
export const PERMISSIONS = [
  'contacts:read',
  'contacts:write',
  'custom-fields:read',
  'custom-fields:write',
  'groups:read',
  'groups:write',
  'templates:read',
  'templates:write',
  'messages:read',
  'messages:write',
] as const;

export const PermissionSchema = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof PermissionSchema>;

export const ALL_PERMISSIONS: readonly Permission[] = PERMISSIONS;

/** Who is calling: resolved once per request from an API key, a session, or (later) an OAuth token. */
export interface Principal {
  accountId: string;
  permissions: ReadonlySet<Permission>;
  via: 'api_key' | 'oauth' | 'session';
  /** key_… for API keys, usr_… for sessions and OAuth tokens. */
  subjectId: string;
  userId?: string;
}
