import type { RequestHandler } from 'express';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import type { OAuthService } from '../service.js';

/**
 * POST /register (RFC 7591): the SDK's handler (shape validation, CORS, 20 registrations per hour
 * per address, secret generation) over our store, which checks redirect URIs, grant and response
 * types, assigns a `cli_…` id, and keeps only the secret's SHA-256. Secrets do not expire
 * (client_secret_expires_at: 0).
 */
export function registerHandler(oauth: OAuthService): RequestHandler {
  return clientRegistrationHandler({ clientsStore: oauth.clients, clientSecretExpirySeconds: 0, clientIdGeneration: false });
}
