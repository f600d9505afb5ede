import { z } from 'zod';

/**
 * Spec §5.2 plus messages:read and messages:write (DESIGN §4), and the management permissions of
 * webhooks and forms. OAuth scopes are the same strings.
 */
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
  'webhooks:manage',
  'forms:manage',
] as const;

export const PermissionSchema = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof PermissionSchema>;

export const ALL_PERMISSIONS: readonly Permission[] = PERMISSIONS;

/**
 * Permissions that reconfigure where the account's data goes (webhook endpoints and their signing
 * secrets, public opt-in forms). An OAuth client gets them only when it asked for them by name and
 * the person ticked them; they are never part of a default request and never ticked in advance.
 */
export const MANAGEMENT_PERMISSIONS: readonly Permission[] = ['webhooks:manage', 'forms:manage'];

const DESCRIPTIONS: Record<Permission, string> = {
  'contacts:read': 'Read contacts',
  'contacts:write': 'Create, change and delete contacts',
  'custom-fields:read': 'Read custom contact fields',
  'custom-fields:write': 'Create and delete custom contact fields',
  'groups:read': 'Read contact groups',
  'groups:write': 'Create, change and delete contact groups',
  'templates:read': 'Read message templates',
  'templates:write': 'Create, change and delete message templates',
  'messages:read': 'Read the message log, batch jobs and conversations',
  'messages:write': 'Send and cancel messages',
  'webhooks:manage': 'Create, change and delete webhook endpoints, which receive your account’s message events (never their signing secrets)',
  'forms:manage': 'Create, change and delete public opt-in forms, which send confirmation SMS',
};

/** What a permission (an API key's or an OAuth scope) lets its holder do, as the console and the consent page say it. */
export const permissionDescription = (permission: Permission): string => DESCRIPTIONS[permission];

/** Everything but the management permissions: what an assistant is offered by default. */
export const DEFAULT_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter((p) => !MANAGEMENT_PERMISSIONS.includes(p));

/** Who is calling: resolved once per request from an API key, a session, or an OAuth token. */
export interface Principal {
  accountId: string;
  permissions: ReadonlySet<Permission>;
  via: 'api_key' | 'oauth' | 'session';
  /** key_… for API keys, usr_… for sessions and OAuth tokens. */
  subjectId: string;
  userId?: string;
  /**
   * Approval belongs to the credential (DESIGN §4): true for OAuth access tokens (assistants) and
   * API keys marked "sends need approval". Such a principal sends only through a preview a person
   * approved, on every door; it never sees a webhook signing secret.
   */
  sendsNeedApproval: boolean;
  /**
   * The credential itself, for labels a person reads: the API key (`key_…`, `key "<name>"`) or the
   * OAuth client (its client_id, `app "<name shown on the consent page>"`). Filled where principals
   * are built, from the rows they already read.
   */
  credential?: { id: string; label: string };
}

/**
 * Who writes, as the services that keep provenance need it (issue #27: contacts remember which
 * approval-bound credential last wrote each merge value). Built once per call from the principal
 * by actorOf; a service called without one treats the writer as not approval-bound.
 */
export interface Actor {
  sendsNeedApproval: boolean;
  /** key_… of an API key, the client_id of an OAuth client, or the principal's subject. */
  credentialId: string;
  /** `key "Assistant"`, `app "Claude Desktop"`, `user "a@example.com"`. */
  label: string;
  /** The door: an API key or OAuth token (REST, MCP), or a person's console session. Recorded on the consent record. */
  via?: Principal['via'];
}

/** The label of a credential as people see it: `key "Assistant"`, `app "Claude Desktop"`. */
export const credentialLabel = (kind: 'key' | 'app' | 'user', name: string): string => `${kind} ${JSON.stringify(name)}`;

export function actorOf(principal: Principal): Actor {
  const credential = principal.credential ?? { id: principal.subjectId, label: principal.via === 'oauth' ? credentialLabel('app', principal.subjectId) : credentialLabel('key', principal.subjectId) };
  return { sendsNeedApproval: principal.sendsNeedApproval, credentialId: credential.id, label: credential.label, via: principal.via };
}
