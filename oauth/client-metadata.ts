import { z } from 'zod';

/**
 * RFC 7591 client metadata, as a registration request (handlers/register.ts) or a client ID
 * metadata document (client-metadata-document.ts) carries it. Only the shape is checked here;
 * what this server accepts (redirect URI rules, grant and response types, auth methods) is decided
 * where the client is stored (clients.ts) or the document is used. Unknown fields are dropped.
 */
const BLOCKED_URL_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:']);

const SafeUrl = z
  .string()
  .max(2000)
  .refine((v) => URL.canParse(v), { message: 'must be an absolute URL' })
  .refine((v) => !URL.canParse(v) || !BLOCKED_URL_SCHEMES.has(new URL(v).protocol), { message: 'must not use a javascript:, data: or vbscript: URL' });

/** logo_uri and tos_uri: some clients send '' for "none". */
const OptionalSafeUrl = z.union([z.literal('').transform(() => undefined), SafeUrl]).optional();

export const ClientMetadataSchema = z
  .object({
    redirect_uris: z.array(SafeUrl, { message: 'redirect_uris must be an array of URLs' }),
    token_endpoint_auth_method: z.string().max(100).optional(),
    grant_types: z.array(z.string().max(200)).max(20).optional(),
    response_types: z.array(z.string().max(200)).max(20).optional(),
    client_name: z.string().max(2000).optional(),
    client_uri: SafeUrl.optional(),
    logo_uri: OptionalSafeUrl,
    scope: z.string().max(2000).optional(),
    contacts: z.array(z.string().max(500)).max(20).optional(),
    tos_uri: OptionalSafeUrl,
    policy_uri: z.string().max(2000).optional(),
    jwks_uri: SafeUrl.optional(),
    jwks: z.unknown().optional(),
    software_id: z.string().max(500).optional(),
    software_version: z.string().max(500).optional(),
    software_statement: z.string().max(10_000).optional(),
  })
  .strip();

export type ClientMetadata = z.infer<typeof ClientMetadataSchema>;

/** The first problem of a failed parse as one line: `field.path: message`. */
export function firstIssue(error: z.ZodError, fallback: string): string {
  const issue = error.issues[0];
  if (!issue) return fallback;
  const path = issue.path.join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
