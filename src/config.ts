import path from 'node:path';
import { z } from 'zod';
import { parseSealingKey } from './platform/sealing.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce.number().int().min(0).max(65535);

/**
 * Every setting comes from the environment and is parsed here once. Switches that weaken a safety
 * check are named DANGEROUSLY_* so they stand out in a deployment's configuration.
 */
/** Every environment variable the server reads, as documented in the README's Configuration table (test/unit/readme.test.ts). */
export const ConfigEnvSchema = z.object({
    PORT: port.default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    // Browser origins allowed on /mcp besides this server's own and loopback (src/mcp/cors.ts): comma-separated origins.
    MCP_ALLOWED_ORIGINS: z
      .string()
      .default('')
      .transform((v, ctx) => {
        const out: string[] = [];
        for (const item of v.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
          let origin: string | null = null;
          try {
            const u = new URL(item);
            if ((u.protocol === 'https:' || u.protocol === 'http:') && u.origin === item.replace(/\/+$/, '')) origin = u.origin;
          } catch {
            origin = null;
          }
          if (origin === null) ctx.addIssue({ code: 'custom', message: `"${item}" is not an origin such as https://app.example.com (scheme, host and port only)` });
          else out.push(origin);
        }
        return out;
      }),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_FILE: z.string().min(1).optional(),
    // PostgreSQL instead of the SQLite file (src/platform/db/postgres.ts): postgres://user:password@host:port/database.
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    // At least 2: a claim that spans another service's transaction (the simulated network's receipt
    // tick, platform/db/claim.ts inClaim) holds one connection while that transaction needs another.
    DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(1000).default(10),
    // TLS to PostgreSQL: require encrypts without checking the certificate (libpq's sslmode=require);
    // verify-full checks it against the system CAs or DATABASE_SSL_CA (a PEM file) and the host name.
    DATABASE_SSL: z.enum(['disable', 'require', 'verify-full']).optional(),
    DATABASE_SSL_CA: z.string().min(1).optional(),
    // The key that seals TOTP secrets and signing keys (src/platform/sealing.ts); default DATA_DIR/sealing.key.
    SEALING_KEY: z
      .string()
      .optional()
      .refine((v) => v === undefined || parseSealingKey(v) !== null, 'must be 32 bytes, as 64 hex digits or base64 (e.g. openssl rand -base64 32)'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    CARRIER_RCS: z.enum(['simulated', 'rbm']).default('simulated'),
    CARRIER_SMS: z.enum(['simulated', 'smpp']).default('simulated'),
    // Google RCS Business Messaging (CARRIER_RCS=rbm); required ones are checked below.
    RBM_AGENT_ID: z.string().min(1).optional(),
    RBM_SERVICE_ACCOUNT_FILE: z.string().min(1).optional(),
    RBM_ENDPOINT: z.url({ protocol: /^https?$/ }).default('https://rcsbusinessmessaging.googleapis.com'),
    RBM_WEBHOOK_CLIENT_TOKEN: z.string().min(8).optional(),
    // SMPP 3.4 (CARRIER_SMS=smpp): smpp://system_id:password@host:port (ssmpp:// for TLS).
    SMPP_URL: z.url({ protocol: /^s?smpp$/ }).optional(),
    SMPP_WINDOW: z.coerce.number().int().min(1).max(1000).default(10),
    SMPP_ENQUIRE_LINK_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    SMPP_SYSTEM_TYPE: z.string().max(12).default(''),
    // transceiver: one bind per SMSC; transmitter_receiver: submits on a transmitter bind, receipts and inbound on a receiver bind.
    SMPP_BIND_MODE: z.enum(['transceiver', 'transmitter_receiver']).default('transceiver'),
    SIM_DELIVERY_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(1500),
    SIM_READ_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(4000),
    SENDER_MAX_PER_SECOND: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
    RECIPIENT_RATE_LIMIT: z.coerce.number().int().min(0).max(1_000_000).default(60),
    RECIPIENT_RATE_WINDOW_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(60),
    SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(12),
    LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
    LOGIN_LOCKOUT_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
    TRUST_PROXY: bool.default(false),
    SEED_DEMO: bool.default(true),
    DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS: bool.default(false),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
    WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(10).max(24 * 3_600_000).default(3_600_000),
    WEBHOOK_RETRY_HOURS: z.coerce.number().int().min(24).max(7 * 24).default(24),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  });

export const ConfigSchema = ConfigEnvSchema
  .superRefine((env, ctx) => {
    // A real carrier without its settings must stop the start, naming what is missing.
    const required: Array<[boolean, keyof typeof env]> = [
      [env.CARRIER_RCS === 'rbm', 'RBM_AGENT_ID'],
      [env.CARRIER_RCS === 'rbm', 'RBM_SERVICE_ACCOUNT_FILE'],
      [env.CARRIER_RCS === 'rbm', 'RBM_WEBHOOK_CLIENT_TOKEN'],
      [env.CARRIER_SMS === 'smpp', 'SMPP_URL'],
    ];
    for (const [needed, name] of required) {
      if (needed && env[name] === undefined) {
        const carrier = name === 'SMPP_URL' ? 'CARRIER_SMS=smpp' : 'CARRIER_RCS=rbm';
        ctx.addIssue({ code: 'custom', path: [name], message: `required when ${carrier}` });
      }
    }
    // The PostgreSQL settings mean nothing on the SQLite file: a typo'd deployment stops instead of running on SQLite.
    if (env.DATABASE_URL !== undefined && env.DATABASE_FILE !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_FILE'], message: 'set either DATABASE_FILE (SQLite) or DATABASE_URL (PostgreSQL), not both' });
    }
    for (const name of ['DATABASE_SSL', 'DATABASE_SSL_CA'] as const) {
      if (env[name] !== undefined && env.DATABASE_URL === undefined) ctx.addIssue({ code: 'custom', path: [name], message: 'only with DATABASE_URL (PostgreSQL)' });
    }
    if (env.DATABASE_SSL_CA !== undefined && env.DATABASE_SSL !== 'verify-full') {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_SSL_CA'], message: 'only with DATABASE_SSL=verify-full' });
    }
    if (env.SMPP_URL !== undefined) {
      const u = new URL(env.SMPP_URL);
      if (!u.username || !u.port) ctx.addIssue({ code: 'custom', path: ['SMPP_URL'], message: 'must look like smpp://system_id:password@host:port' });
    }
  })
  .transform((env) => {
    const dataDir = path.resolve(env.DATA_DIR);
    const publicUrl = (env.PUBLIC_URL ?? `http://${env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST}:${env.PORT}`).replace(/\/+$/, '');
    return {
      port: env.PORT,
      host: env.HOST,
      /** Without trailing slash. When PUBLIC_URL is not set it follows the bound port (bindPort() completes it before anything is built). */
      publicUrl,
      publicUrlExplicit: env.PUBLIC_URL !== undefined,
      /** Browser origins allowed on /mcp besides the public URL's and loopback ones. */
      mcpAllowedOrigins: env.MCP_ALLOWED_ORIGINS,
      dataDir,
      /** SEALING_KEY; null: the key file in the data directory. */
      sealingKey: env.SEALING_KEY === undefined ? null : parseSealingKey(env.SEALING_KEY),
      databaseFile: env.DATABASE_FILE === ':memory:' ? ':memory:' : path.resolve(dataDir, env.DATABASE_FILE ?? 'rcs.sqlite'),
      /** DATABASE_URL: PostgreSQL instead of the SQLite file `databaseFile`; null: SQLite. */
      postgres:
        env.DATABASE_URL === undefined
          ? null
          : {
              url: env.DATABASE_URL,
              poolMax: env.DATABASE_POOL_MAX,
              ssl: env.DATABASE_SSL ?? null,
              sslCaFile: env.DATABASE_SSL_CA === undefined ? null : path.resolve(env.DATABASE_SSL_CA),
            },
      logLevel: env.LOG_LEVEL,
      carriers: { rcs: env.CARRIER_RCS, sms: env.CARRIER_SMS },
      /** Google RBM: set when CARRIER_RCS=rbm (the refinement above guarantees the required parts). */
      rbm:
        env.CARRIER_RCS === 'rbm'
          ? {
              agentId: env.RBM_AGENT_ID!,
              serviceAccountFile: path.resolve(env.RBM_SERVICE_ACCOUNT_FILE!),
              endpoint: env.RBM_ENDPOINT.replace(/\/+$/, ''),
              webhookClientToken: env.RBM_WEBHOOK_CLIENT_TOKEN!,
            }
          : null,
      /** SMPP: set when CARRIER_SMS=smpp. */
      smpp:
        env.CARRIER_SMS === 'smpp'
          ? { url: env.SMPP_URL!, window: env.SMPP_WINDOW, enquireLinkMs: env.SMPP_ENQUIRE_LINK_SECONDS * 1000, systemType: env.SMPP_SYSTEM_TYPE, bindMode: env.SMPP_BIND_MODE }
          : null,
      simulated: { deliveryDelayMs: env.SIM_DELIVERY_DELAY_MS, readDelayMs: env.SIM_READ_DELAY_MS },
      /** Per-sender dispatch ceiling, so one large batch cannot starve other senders. */
      senderMaxPerSecond: env.SENDER_MAX_PER_SECOND,
      /** Per-recipient throttle: messages one account may queue to one number per rolling window; 0 = off. */
      recipientRateLimit: { max: env.RECIPIENT_RATE_LIMIT, windowMs: env.RECIPIENT_RATE_WINDOW_MINUTES * 60_000 },
      sessionTtlMs: env.SESSION_TTL_HOURS * 3_600_000,
      login: { maxFailures: env.LOGIN_MAX_FAILURES, lockoutMs: env.LOGIN_LOCKOUT_MINUTES * 60_000 },
      trustProxy: env.TRUST_PROXY,
      seedDemo: env.SEED_DEMO,
      secureCookies: (env.PUBLIC_URL ?? '').startsWith('https://'),
      dangerouslyAllowPrivateNetworkTargets: env.DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS,
      /** Outbound webhooks (src/webhooks, docs/webhooks.md): per-request timeout, retry backoff and window, parallel posts. */
      webhooks: {
        timeoutMs: env.WEBHOOK_TIMEOUT_MS,
        retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
        retryMaxMs: Math.max(env.WEBHOOK_RETRY_BASE_MS, env.WEBHOOK_RETRY_MAX_MS),
        retryWindowMs: env.WEBHOOK_RETRY_HOURS * 3_600_000,
        concurrency: env.WEBHOOK_CONCURRENCY,
      },
    };
  });

export type Config = z.output<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Variables whose values carry credentials: an error names them but never prints the value. */
const SECRET_VARIABLES = new Set(['DATABASE_URL', 'SMPP_URL', 'RBM_WEBHOOK_CLIENT_TOKEN', 'SEALING_KEY']);

/** Parses the environment; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.in.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const parsed = ConfigSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => {
        const name = String(i.path[0] ?? '?');
        const value = SECRET_VARIABLES.has(name) && relevant[name] !== undefined ? '(redacted)' : JSON.stringify(relevant[name] ?? '');
        return `${name}=${value}: ${i.message}`;
      }),
    );
  }
  return parsed.data;
}
