import path from 'node:path';
import { parseArgs } from 'node:util';
import QRCode from 'qrcode';
import { loadConfig, ConfigError } from './config.js';
import { createContext, type AppContext } from './context.js';
import { AppError, isAppError } from './platform/errors.js';
import { ALL_PERMISSIONS, PermissionSchema, type Permission } from './platform/permissions.js';
import { SenderTypeSchema } from './senders/schemas.js';
import { parseCarrierConfig } from './carriers/sender-config.js';
import { setSenderCarrierConfig } from './senders/carrier-config.js';
import { copyToPostgresCommand, type StandaloneCommand } from './admin/db-copy-command.js';
import { parseLimitInput, type LimitsChange } from './billing/budgets.js';

/**
 * Operator commands: `npm run admin -- <command> [--flags]`. They open the same database as the
 * server (SQLite WAL allows both at once) and go through the same services, so every rule applies.
 */
interface Command {
  summary: string;
  usage: string;
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  run(ctx: AppContext, values: Record<string, string | boolean | string[] | undefined>, positionals: string[]): Promise<void>;
}

const out = (line = '') => process.stdout.write(`${line}\n`);
const json = (v: unknown) => out(JSON.stringify(v, null, 2));

function need(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new AppError('VALIDATION_ERROR', `--${name} is required`);
  return v.trim();
}

function number(values: Record<string, unknown>, name: string): number {
  const raw = need(values, name);
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new AppError('VALIDATION_ERROR', `--${name} must be a number, got ${raw}`);
  return n;
}

function permissionsFrom(raw: string): Permission[] {
  if (raw === 'all') return [...ALL_PERMISSIONS];
  return raw.split(',').map((p) => {
    const parsed = PermissionSchema.safeParse(p.trim());
    if (!parsed.success) throw new AppError('VALIDATION_ERROR', `Unknown permission "${p.trim()}". Known: ${ALL_PERMISSIONS.join(', ')} (or "all")`);
    return parsed.data;
  });
}

/** --daily-credits / --max-recipients as given (a number, or "none" to remove); undefined when neither was. */
function limitsFrom(values: Record<string, unknown>): LimitsChange | undefined {
  const raw = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const dailyCredits = parseLimitInput(raw('daily-credits'), 'dailyCredits');
  const maxRecipients = parseLimitInput(raw('max-recipients'), 'maxRecipients');
  if (dailyCredits === undefined && maxRecipients === undefined) return undefined;
  return { ...(dailyCredits !== undefined ? { dailyCredits } : {}), ...(maxRecipients !== undefined ? { maxRecipients } : {}) };
}

const LIMIT_OPTIONS = { 'daily-credits': { type: 'string' }, 'max-recipients': { type: 'string' } } as const;
const LIMITS_USAGE = '[--daily-credits <credits per UTC day | none>] [--max-recipients <recipients per send | none>]';

async function printEnrolment(uri: string, secret: string): Promise<void> {
  out(`TOTP secret: ${secret}`);
  out(`TOTP URI:    ${uri}`);
  out(await QRCode.toString(uri, { type: 'terminal', small: true }));
}

const commands: Record<string, Command> = {
  'accounts:create': {
    summary: 'Create an account (tenant) with the default price list',
    usage: '--name <name> [--timezone Europe/Berlin] [--credits 100]',
    options: { name: { type: 'string' }, timezone: { type: 'string' }, credits: { type: 'string' } },
    async run(ctx, v) {
      const account = await ctx.services.accounts.create({
        name: need(v, 'name'),
        ...(typeof v.timezone === 'string' ? { timezone: v.timezone } : {}),
        ...(typeof v.credits === 'string' ? { credits: number(v, 'credits') } : {}),
      });
      json(account);
    },
  },
  'accounts:list': {
    summary: 'List accounts',
    usage: '',
    options: {},
    async run(ctx) {
      json(await ctx.services.accounts.list());
    },
  },
  'users:create': {
    summary: 'Create a person who can log in; prints the TOTP enrolment (and a generated password)',
    usage: '--account <acc_…> --email <email> [--password <at least 12 chars>]',
    options: { account: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    async run(ctx, v) {
      const accountId = need(v, 'account');
      await ctx.services.accounts.get(accountId);
      const created = await ctx.services.users.create(accountId, need(v, 'email'), typeof v.password === 'string' ? v.password : undefined);
      out(`User ${created.user.id} <${created.user.email}>`);
      if (created.generatedPassword) out(`Password:    ${created.generatedPassword}`);
      await printEnrolment(created.otpauthUri, created.totpSecret);
    },
  },
  'users:reset-totp': {
    summary: 'Issue a new TOTP secret for a person (the old one stops working)',
    usage: '--user <usr_…>',
    options: { user: { type: 'string' } },
    async run(ctx, v) {
      const created = await ctx.services.users.resetTotp(need(v, 'user'));
      await printEnrolment(created.otpauthUri, created.totpSecret);
    },
  },
  'keys:create': {
    summary: 'Create an API key; the key is printed once',
    usage: `--account <acc_…> --name <name> --permissions <all | ${ALL_PERMISSIONS.slice(0, 2).join(',')},…> [--sends-need-approval] ${LIMITS_USAGE}`,
    options: { account: { type: 'string' }, name: { type: 'string' }, permissions: { type: 'string' }, 'sends-need-approval': { type: 'boolean' }, ...LIMIT_OPTIONS },
    async run(ctx, v) {
      const accountId = need(v, 'account');
      await ctx.services.accounts.get(accountId);
      const sendsNeedApproval = v['sends-need-approval'] === true;
      // Checked before the key exists: a typo in a limit creates nothing.
      const limits = limitsFrom(v);
      const { key, info } = await ctx.services.apiKeys.create(accountId, need(v, 'name'), permissionsFrom(need(v, 'permissions')), { sendsNeedApproval });
      json({ ...info, limits: limits ? await ctx.services.budgets.setLimits(accountId, { id: info.id, kind: 'key' }, limits) : { dailyCredits: null, maxRecipients: null } });
      out(`API key (shown once): ${key}`);
      out(
        sendsNeedApproval
          ? 'Sends need approval: this key sends only through a preview a person approved (for assistants).'
          : 'Sends directly, without approval (an automation key). Give assistants a key made with --sends-need-approval.',
      );
    },
  },
  'keys:list': {
    summary: "List an account's API keys (never the secrets)",
    usage: '--account <acc_…>',
    options: { account: { type: 'string' } },
    async run(ctx, v) {
      const accountId = need(v, 'account');
      const [keys, budgets] = await Promise.all([ctx.services.apiKeys.list(accountId), ctx.services.budgets.statuses(accountId)]);
      json(
        keys.map((k) => {
          const b = budgets.get(k.id);
          return { ...k, limits: { dailyCredits: b?.dailyCredits ?? null, maxRecipients: b?.maxRecipients ?? null }, today: { credits: b?.creditsUsedToday ?? 0, messages: b?.messagesToday ?? 0, creditsLeft: b?.creditsLeftToday ?? null } };
        }),
      );
    },
  },
  'keys:limits': {
    summary: 'Set or remove the limits of an API key or a connected OAuth app ("none" removes one; a limit not given stays)',
    usage: `--account <acc_…> (--key <key_…> | --app <client_id>) ${LIMITS_USAGE}`,
    options: { account: { type: 'string' }, key: { type: 'string' }, app: { type: 'string' }, ...LIMIT_OPTIONS },
    async run(ctx, v) {
      const accountId = need(v, 'account');
      const key = typeof v.key === 'string' ? v.key.trim() : '';
      const app = typeof v.app === 'string' ? v.app.trim() : '';
      if ((key === '') === (app === '')) throw new AppError('VALIDATION_ERROR', 'Give exactly one of --key <key_…> or --app <client_id>');
      const limits = limitsFrom(v);
      if (!limits) throw new AppError('VALIDATION_ERROR', 'Give --daily-credits and/or --max-recipients (a number, or "none" to remove the limit)');
      const credential = key !== '' ? { id: key, kind: 'key' as const } : { id: app, kind: 'app' as const };
      json({ credential: credential.id, limits: await ctx.services.budgets.setLimits(accountId, credential, limits) });
    },
  },
  'keys:revoke': {
    summary: 'Revoke an API key at once',
    usage: '--account <acc_…> --key <key_…>',
    options: { account: { type: 'string' }, key: { type: 'string' } },
    async run(ctx, v) {
      json(await ctx.services.apiKeys.revoke(need(v, 'account'), need(v, 'key')));
    },
  },
  'senders:add': {
    summary: 'Add a sender identity (PENDING unless --status is given)',
    usage: '--account <acc_…> --name <name> --type RCS|SMS [--status APPROVED|PENDING|DRAFT] [--default] [--test --test-phone +49… --test-phone …] [--conversation-billing] [--stop-keyword STOP]',
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      type: { type: 'string' },
      status: { type: 'string' },
      default: { type: 'boolean' },
      test: { type: 'boolean' },
      'test-phone': { type: 'string', multiple: true },
      'conversation-billing': { type: 'boolean' },
      'stop-keyword': { type: 'string' },
    },
    async run(ctx, v) {
      const accountId = need(v, 'account');
      await ctx.services.accounts.get(accountId);
      const type = SenderTypeSchema.safeParse(need(v, 'type').toUpperCase());
      if (!type.success) throw new AppError('VALIDATION_ERROR', '--type must be RCS or SMS');
      const sender = await ctx.services.senders.create(accountId, {
        name: need(v, 'name'),
        type: type.data,
        ...(typeof v.status === 'string' ? { status: v.status.toUpperCase() as 'APPROVED' } : {}),
        isDefault: v.default === true,
        isTest: v.test === true,
        supportsConversationBilling: v['conversation-billing'] === true,
        testPhones: Array.isArray(v['test-phone']) ? v['test-phone'] : [],
        ...(typeof v['stop-keyword'] === 'string' ? { stopKeyword: v['stop-keyword'] } : {}),
      });
      json(sender);
    },
  },
  'senders:list': {
    summary: "List an account's senders",
    usage: '--account <acc_…>',
    options: { account: { type: 'string' } },
    async run(ctx, v) {
      json(await ctx.services.senders.list(need(v, 'account')));
    },
  },
  'senders:approve': {
    summary: 'Approve a sender',
    usage: '<snd_…>',
    options: {},
    async run(ctx, _v, pos) {
      const row = await senderRow(ctx, pos[0]);
      json(await ctx.services.senders.setStatus(row.account_id, row.id, 'APPROVED'));
    },
  },
  'senders:reject': {
    summary: 'Reject a sender with a reason the customer can act on',
    usage: '<snd_…> --reason <text>',
    options: { reason: { type: 'string' } },
    async run(ctx, v, pos) {
      const row = await senderRow(ctx, pos[0]);
      json(await ctx.services.senders.setStatus(row.account_id, row.id, 'REJECTED', need(v, 'reason')));
    },
  },
  'senders:carrier': {
    summary: 'Per-sender carrier override: another RBM agent (RCS sender) or another SMSC (SMS sender); --clear removes it',
    usage: '<snd_…> --rbm-agent <agent id> [--rbm-service-account <file.json>] [--rbm-client-token <token>] | --smpp-url smpp://id:pw@host:port | --clear | --show',
    options: {
      'rbm-agent': { type: 'string' },
      'rbm-service-account': { type: 'string' },
      'rbm-client-token': { type: 'string' },
      'smpp-url': { type: 'string' },
      clear: { type: 'boolean' },
      show: { type: 'boolean' },
    },
    async run(ctx, v, pos) {
      const row = await senderRow(ctx, pos[0]);
      const redact = (c: ReturnType<typeof parseCarrierConfig>) => ({
        ...(c.rbm ? { rbm: { ...c.rbm, ...(c.rbm.clientToken ? { clientToken: '(set)' } : {}) } } : {}),
        ...(c.smpp ? { smpp: { url: c.smpp.url.replace(/:[^:@/]*@/, ':***@') } } : {}),
      });
      if (v.show === true) {
        json({ sender: row.id, type: row.type, carrierConfig: redact(parseCarrierConfig(row.carrier_config)) });
        return;
      }
      let stored;
      if (v.clear === true) stored = await setSenderCarrierConfig(ctx.db, row.id, { rbm: null, smpp: null });
      else if (typeof v['smpp-url'] === 'string') stored = await setSenderCarrierConfig(ctx.db, row.id, { smpp: { url: need(v, 'smpp-url') } });
      else if (typeof v['rbm-agent'] === 'string') {
        stored = await setSenderCarrierConfig(ctx.db, row.id, {
          rbm: {
            agentId: need(v, 'rbm-agent'),
            ...(typeof v['rbm-service-account'] === 'string' ? { serviceAccountFile: path.resolve(need(v, 'rbm-service-account')) } : {}),
            ...(typeof v['rbm-client-token'] === 'string' ? { clientToken: need(v, 'rbm-client-token') } : {}),
          },
        });
      } else throw new AppError('VALIDATION_ERROR', 'Give --rbm-agent, --smpp-url, --clear or --show');
      json({ sender: row.id, type: row.type, carrierConfig: redact(stored) });
      out('A running server picks the change up within a few seconds.');
    },
  },
  'credits:set': {
    summary: "Set an account's credit balance (recorded in its credit ledger as an adjustment with the reason)",
    usage: '--account <acc_…> --credits <number> [--reason "why"]',
    options: { account: { type: 'string' }, credits: { type: 'string' }, reason: { type: 'string' } },
    async run(ctx, v) {
      const reason = typeof v.reason === 'string' ? v.reason : 'Set by an operator with credits:set (no --reason given)';
      const id = need(v, 'account');
      const r = await ctx.services.billing.setCredits(id, number(v, 'credits'), reason);
      out(`${id}: ${r.credits} credits (${r.changedBy >= 0 ? '+' : ''}${r.changedBy}, ${reason})`);
    },
  },
  'prices:list': {
    summary: "Show an account's price list (credits)",
    usage: '--account <acc_…>',
    options: { account: { type: 'string' } },
    async run(ctx, v) {
      const list = await ctx.services.accounts.priceList(need(v, 'account'));
      for (const [country, p] of [...list.entries()].sort()) out(`${country}  rcs ${p.rcs / 1000}  sms/segment ${p.sms / 1000}`);
    },
  },
  'prices:set': {
    summary: "Add or change one country in an account's price list",
    usage: '--account <acc_…> --country DE --rcs 0.035 --sms 0.085',
    options: { account: { type: 'string' }, country: { type: 'string' }, rcs: { type: 'string' }, sms: { type: 'string' } },
    async run(ctx, v) {
      await ctx.services.accounts.setPrice(need(v, 'account'), need(v, 'country'), { rcs: number(v, 'rcs'), sms: number(v, 'sms') });
      out('ok');
    },
  },
  'prices:remove': {
    summary: "Remove a country from an account's price list (it can no longer be messaged)",
    usage: '--account <acc_…> --country DE',
    options: { account: { type: 'string' }, country: { type: 'string' } },
    async run(ctx, v) {
      await ctx.services.accounts.setPrice(need(v, 'account'), need(v, 'country'), null);
      out('ok');
    },
  },
};

/** Commands that open no application context (they work on databases no server runs on). */
const standaloneCommands: Record<string, StandaloneCommand> = {
  'db:copy-to-postgres': copyToPostgresCommand,
};

async function senderRow(ctx: AppContext, id: string | undefined) {
  if (!id) throw new AppError('VALIDATION_ERROR', 'Give the sender id (snd_…)');
  const row = await ctx.services.senders.findForOperator(id);
  if (!row) throw new AppError('NOT_FOUND', `Sender ${id} not found`);
  return row;
}

function help(): void {
  out('Usage: npm run admin -- <command> [options]\n');
  for (const [name, c] of Object.entries({ ...commands, ...standaloneCommands })) out(`  ${name.padEnd(19)} ${c.summary}\n  ${' '.repeat(19)} ${c.usage}`);
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help') {
    help();
    return name ? 0 : 2;
  }
  const command = commands[name] ?? standaloneCommands[name];
  if (!command) {
    process.stderr.write(`Unknown command "${name}". Run "npm run admin -- help".\n`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\nUsage: npm run admin -- ${name} ${command.usage}\n`);
    return 2;
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  // A standalone command opens its own databases; the configured one is not touched (not even created).
  if ('standalone' in command) {
    if (parsed.positionals.length > 0) {
      process.stderr.write(`Unexpected argument "${parsed.positionals[0]}".\nUsage: npm run admin -- ${name} ${command.usage}\n`);
      return 2;
    }
    return reportErrors(() => command.run(values, { out, err: process.stderr }));
  }
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const ctx = await createContext(config);
  try {
    return await reportErrors(() => command.run(ctx, values, parsed.positionals));
  } finally {
    await ctx.database.close();
  }
}

/** 0 when `run` succeeds; an AppError is printed with its code and is exit code 1; anything else is thrown on. */
async function reportErrors(run: () => Promise<void>): Promise<number> {
  try {
    await run();
    return 0;
  } catch (err) {
    if (isAppError(err)) {
      process.stderr.write(`Error (${err.code}): ${err.message}\n`);
      for (const d of err.details ?? []) process.stderr.write(`  ${d.path}: ${d.message}\n`);
      return 1;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `Failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  },
);
