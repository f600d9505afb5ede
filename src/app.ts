import express, { type Express } from 'express';
import helmet from 'helmet';
import type { AppContext } from './context.js';
import { loginRoutes, pageError } from './accounts/login-routes.js';
import { loadSession } from './accounts/session-middleware.js';
import { healthRoutes } from './health/routes.js';
import { mcpBodyError, mcpHandler } from './mcp/routes.js';
import { mcpCors } from './mcp/cors.js';
import { previewPages } from './previews/page-routes.js';
import { previewMediaRoutes } from './previews/media-routes.js';
import { previewsRoutes } from './previews/routes.js';
import { consoleFeeds } from './console/feeds.js';
import { approvalsConsole } from './previews/console-routes.js';
import { logRoutes } from './messaging/log-routes.js';
import { messagingRoutes } from './messaging/routes.js';
import { sendersRoutes } from './senders/routes.js';
import { contactsRoutes } from './contacts/routes.js';
import { contactConsentRoutes } from './contacts/consent-routes.js';
import { consentConsole } from './contacts/consent-console.js';
import { consentRecordRoutes, consentReviewRoutes } from './suppression/routes.js';
import { fieldsRoutes } from './fields/routes.js';
import { groupsRoutes } from './groups/routes.js';
import { templatesRoutes } from './templates/routes.js';
import { sandboxRoutes } from './sandbox/routes.js';
import { sandboxPages } from './sandbox/page-routes.js';
import { validationRoutes } from './validation-api/routes.js';
import { consoleRoutes, type ConsolePage } from './console/routes.js';
import { appsConsole, consentRoutes, oauthRouter } from '../oauth/index.js';
import { conversationsRoutes } from './conversations/routes.js';
import { interactionsRoutes } from './inbound/routes.js';
import { phoneRoutes } from './inbound/phone-routes.js';
import { unsubscribePages } from './inbound/unsubscribe-routes.js';
import { rbmWebhookRoutes } from './carriers/rbm/webhook-route.js';
import { errorHandler, notFoundHandler } from './platform/http/errors.js';
import { billingRoutes } from './billing/routes.js';
import { creditsConsole, usageConsole } from './billing/console-routes.js';
import { apiKeysConsole, settingsConsole } from './accounts/console-routes.js';
import { sendersConsole } from './senders/console-routes.js';
import { mountRoutes, RouteRegistry, type RouteSpec } from './platform/http/route.js';
import { buildOpenApi } from './platform/openapi.js';
import { requestLog } from './platform/http/request-log.js';
import { requireUtf8 } from './platform/http/utf8.js';
import { checkJsonBody } from './platform/http/json-body.js';
import { ASSETS_DIR } from './platform/paths.js';
import { webhooksRoutes } from './webhooks/routes.js';
import { webhooksConsole } from './webhooks/console-routes.js';
import { formsRoutes } from './forms/routes.js';
import { formPages } from './forms/public-routes.js';
import { formsConsole } from './forms/console-routes.js';

/** Base paths of spec §4 (see docs/decisions.md for how the placeholders were fixed). */
export const BASE = {
  rcs: '/api/rcs',
  messages: '/api/messages',
  contacts: '/api/v1/contacts',
  groups: '/api/v1/groups',
  templates: '/api/v1/templates',
  forms: '/api/v1/forms',
  consent: '/api/v1/consent',
  mcp: '/mcp',
} as const;

/** Interface version of the spec (§9). */
export const API_VERSION = '2.0.1';

// Big enough for a 10,000-recipient batch with long numbers; the sandbox checks its own 256,000-byte
// content limit itself so it can answer 413 for that limit precisely.
const JSON_LIMIT = '2mb';

export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('etag', false);
  app.use(requestLog(ctx.logger));
  // What the areas below are built from. Each area's function names what it uses in its parameter
  // type and sees only that; none of them knows AppContext (test/unit/ports.test.ts).
  const deps = { ...ctx.services, config: ctx.config, clock: ctx.clock, logger: ctx.logger };
  const json = express.json({ limit: JSON_LIMIT, type: ['application/json', 'application/*+json'], verify: checkJsonBody });
  // The assistant's hot path comes first: it answers JSON only, so it needs none of the page
  // headers (CSP and friends) or routers below — just nosniff and no caching, set by mcpHandler.
  const mcp = { services: ctx.services, credentialResolvers: ctx.credentialResolvers, config: ctx.config, sealer: ctx.sealer, logger: ctx.logger };
  app.all(BASE.mcp, mcpCors(ctx.config), json, mcpHandler(mcp), mcpBodyError);
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          // Pages load no media from other hosts: the share page fetches images through this
          // server (/preview/<slug>/media/<n>), the others show foreign media as placeholders.
          imgSrc: ["'self'"],
          mediaSrc: ["'self'"],
          fontSrc: ["'self'"],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          objectSrc: ["'none'"],
        },
      },
      crossOriginEmbedderPolicy: false,
      strictTransportSecurity: ctx.config.secureCookies,
    }),
  );
  app.use('/assets', express.static(ASSETS_DIR, { fallthrough: false, index: false, maxAge: '1h' }));
  // Browsers ask for it on every page; no icon, and no 404 in their consoles.
  app.get('/favicon.ico', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.status(204).end();
  });
  app.use(json);
  app.use(express.urlencoded({ extended: false, limit: '64kb', verify: requireUtf8 }));

  // Google RBM posts events and user messages here: public, verified by X-Goog-Signature.
  app.use(rbmWebhookRoutes(ctx.carriers));


  // OAuth 2.1 for /mcp: discovery documents, /authorize, /token, /register, /revoke (oauth/).
  app.use(oauthRouter(ctx.services.oauth, ctx.logger));

  // Each REST area: its base path and its routes as data (see platform/http/route.ts).
  const areas: Array<[string, RouteSpec[]]> = [
    [BASE.rcs, healthRoutes(deps)],
    // Custom-field routes first: /fields must not be taken for a contact id.
    [BASE.contacts, fieldsRoutes(deps)],
    [BASE.contacts, contactConsentRoutes(deps)],
    [BASE.contacts, contactsRoutes(deps)],
    [BASE.consent, consentRecordRoutes(deps)],
    [BASE.consent, consentReviewRoutes(deps)],
    [BASE.groups, groupsRoutes(deps)],
    [BASE.templates, templatesRoutes(deps)],
    [BASE.rcs, validationRoutes(deps)],
    [BASE.rcs, sandboxRoutes(deps)],
    [BASE.rcs, sendersRoutes(deps)],
    [BASE.rcs, messagingRoutes(deps)],
    // The preview flow on REST: how OAuth tokens and approval-bound keys send (approval belongs to the credential).
    [BASE.rcs, previewsRoutes(deps)],
    [BASE.rcs, conversationsRoutes(deps)],
    [BASE.rcs, interactionsRoutes(deps)],
    [BASE.rcs, webhooksRoutes(deps)],
    [BASE.forms, formsRoutes(deps)],
    [BASE.messages, logRoutes(deps)],
    [BASE.rcs, billingRoutes(deps.billing)],
  ];
  const registry = new RouteRegistry();
  for (const [base, specs] of areas) app.use(base, mountRoutes(registry, ctx.credentialResolvers, base, specs, ctx.services.idempotency));
  app.get('/openapi.json', (_req, res) => {
    res.json(buildOpenApi(registry, ctx.config.publicUrl, API_VERSION));
  });

  // The sandbox share page: public, no session.
  app.use(sandboxPages(deps));
  // Unsubscribe links (/u/<token>): public, no session; the confirm form has its own CSRF cookie.
  app.use(unsubscribePages(deps));
  // Opt-in forms (/f/<slug>) and their confirmation links (/f/confirm/<token>): public, double-submit CSRF, rate-limited.
  app.use(formPages(deps));

  // People's pages: sessions only here, never on the API.
  const pages = express.Router();
  pages.use(loadSession(ctx.services.sessions));
  pages.use(loginRoutes(deps));
  pages.use(consentRoutes(deps));
  pages.use(previewPages(deps));
  pages.use(previewMediaRoutes(deps));
  // The simulated network's virtual phone (/phone).
  pages.use(phoneRoutes(deps));
  // The console: each area's pages at their path, in this order, behind the console's login check (src/console/routes.ts);
  // the overview's data from other areas comes through consoleFeeds (src/console/sources.ts).
  const consolePages: ConsolePage[] = [
    ['/console/api-keys', apiKeysConsole(deps)],
    ['/console/apps', appsConsole(deps)],
    ['/console/usage', usageConsole(deps)],
    ['/console/senders', sendersConsole(deps)],
    ['/console/webhooks', webhooksConsole(deps)],
    ['/console/approvals', approvalsConsole(deps)],
    ['/console/forms', formsConsole(deps)],
    ['/console/settings', settingsConsole(deps)],
    ['/console/credits', creditsConsole(deps)],
    ['/console/consent', consentConsole(deps)],
  ];
  pages.use(consoleRoutes(deps, consoleFeeds(deps), consolePages));
  app.use(pages);

  app.use(notFoundHandler);
  app.use(errorHandler(ctx.logger, pageError));
  return app;
}
