import type { ToolServices } from '../../tools/types.js';
import type { Config } from '../config.js';
import type { CredentialResolver } from '../platform/http/auth.js';
import type { Logger } from '../platform/logger.js';
import type { Sealer } from '../platform/sealing.js';

/**
 * What the MCP endpoint uses of the application (issue #32): the services tools may name, who a
 * credential belongs to, the two settings of the transport guard, the sealer's MAC for the 2026
 * request state, and a logger — not the whole application context, which reaches every service
 * and the database.
 */
export interface McpDeps {
  services: ToolServices;
  credentialResolvers: readonly CredentialResolver[];
  config: Pick<Config, 'publicUrl' | 'mcpAllowedOrigins'>;
  sealer: Pick<Sealer, 'mac'>;
  logger: Pick<Logger, 'warn' | 'error'>;
}
