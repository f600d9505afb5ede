import { Router } from 'express';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { SCOPES } from '../constants.js';
import { allowedMethods } from '../middleware/allowed-methods.js';
import { openCors } from '../middleware/cors.js';
import type { OAuthService } from '../service.js';
import { AUTHORIZATION_SERVER_METADATA_PATH, MCP_PATH, PROTECTED_RESOURCE_METADATA_PATH } from '../urls.js';

const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'];

/** RFC 8414 authorization server metadata, from PUBLIC_URL at request time. */
export function authorizationServerMetadata(oauth: OAuthService): OAuthMetadata & Record<string, unknown> {
  const u = oauth.urls();
  return {
    issuer: u.issuer,
    authorization_endpoint: u.authorization,
    token_endpoint: u.token,
    registration_endpoint: u.registration,
    revocation_endpoint: u.revocation,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    // No refresh_token: tokens live 30 days, then the person authorizes again (spec §5.4).
    grant_types_supported: ['authorization_code'],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 9728 protected resource metadata of the MCP endpoint. */
export function protectedResourceMetadata(oauth: OAuthService): OAuthProtectedResourceMetadata {
  const u = oauth.urls();
  return {
    resource: u.mcpResource,
    authorization_servers: [u.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'RCS & SMS messaging (MCP)',
  };
}

/**
 * The discovery documents. Protected resource metadata is served at the path-inserted form for
 * /mcp (what WWW-Authenticate names) and at the root form that older clients try; both describe the
 * MCP resource. Authorization server metadata is at the root form (and the path-inserted form when
 * PUBLIC_URL has a path).
 */
export function metadataRouter(oauth: OAuthService): Router {
  const router = Router();
  const basePath = () => new URL(oauth.urls().issuer).pathname.replace(/\/+$/, '');
  const send = (build: () => object) => {
    const r = Router();
    r.use(openCors(['GET']));
    r.use(allowedMethods(['GET', 'HEAD', 'OPTIONS']));
    r.get('/', (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.json(build());
    });
    return r;
  };
  const prm = send(() => protectedResourceMetadata(oauth));
  const asm = send(() => authorizationServerMetadata(oauth));
  router.use(PROTECTED_RESOURCE_METADATA_PATH, (req, res, next) => {
    const rest = req.path.replace(/\/+$/, '');
    if (rest === '' || rest === MCP_PATH || rest === `${basePath()}${MCP_PATH}`) {
      req.url = '/';
      return prm(req, res, next);
    }
    next();
  });
  router.use(AUTHORIZATION_SERVER_METADATA_PATH, (req, res, next) => {
    const rest = req.path.replace(/\/+$/, '');
    if (rest === '' || (basePath() !== '' && rest === basePath())) {
      req.url = '/';
      return asm(req, res, next);
    }
    next();
  });
  return router;
}
