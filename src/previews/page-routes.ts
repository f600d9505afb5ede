import { Router, type Request, type Response } from 'express';
import { h } from 'preact';
import { ApprovalPage, type ApprovalPageProps, type ApprovalSample } from '../../preview-pages/approval.js';
import { PreviewMissingPage } from '../../preview-pages/preview-missing.js';
import { assertSessionCsrf, requireLogin } from '../accounts/session-middleware.js';
import type { AccountsService } from '../accounts/service.js';
import type { Content, MessageType } from '../content/index.js';
import type { SendersService } from '../senders/service.js';
import type { TemplatesService } from '../templates/service.js';
import type { SendEstimate } from '../messaging/send-service.js';
import { toIso, type Clock } from '../platform/clock.js';
import { parseJson } from '../platform/db/sql.js';
import { textOf } from '../platform/guards.js';
import type { PreviewsTable } from './tables.js';
import { isAppError } from '../platform/errors.js';
import { sendPage } from '../platform/http/pages.js';
import type { PreviewsService } from './service.js';
import type { BudgetStatus, BudgetsService } from '../billing/budgets.js';
import { shareMedia } from './share-media.js';
import type { Config } from '../config.js';
import type { MergeValuesProps } from '../../preview-pages/merge-values.js';
import { fieldStats, queryValues, recipientMessage, recipientsWith, worstValue, type StoredMergeValues } from './merge-report.js';
import { visibleText } from '../content/text-risks.js';
import { loggedIn } from '../platform/http/logged-in.js';

const VALUES_PAGE = 50;
const RECIPIENTS_PAGE = 200;

const SLUG_RE = /^[A-Za-z0-9_-]{10,64}$/;

/**
 * The share pages of MCP previews: /preview/<slug>. Only a logged-in person of the owning
 * account sees them; approve, reject and save-as-template are form POSTs with the session's CSRF
 * token. Another account's slug is a plain 404, like an unknown one.
 */
export function previewPages({ previews, senders, templates, budgets, accounts, clock, config }: { previews: PreviewsService; senders: SendersService; templates: TemplatesService; budgets: Pick<BudgetsService, 'status' | 'holdOf'>; accounts: Pick<AccountsService, 'get'>; clock: Clock; config: Pick<Config, 'publicUrl'> }): Router {
  const router = Router();

  async function render(req: Request, res: Response, slug: string, extra: { notice?: string; error?: string; status?: number } = {}) {
    const s = loggedIn(req);
    const row = await previews.bySlug(s.accountId, slug);
    sendPage(res, h(ApprovalPage, await props(row, s.accountId, { email: s.user.email, csrfToken: s.csrfToken }, sampleIndex(req.query.r), req.query, extra)), extra.status ?? 200);
  }

  async function props(row: PreviewsTable, accountId: string, user: ApprovalPageProps['user'], wanted: number, query: Request['query'], extra: { notice?: string; error?: string }): Promise<ApprovalPageProps> {
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    const report = previews.mergeReport(row);
    const estimate = parseJson<SendEstimate | null>(row.estimate, null);
    const senderName = await senders.get(accountId, String(payload.sendernameId)).then((x) => x.name, () => String(payload.sendernameId));
    const fallback = payload.smsFallback as { message: string; sendernameId: string } | undefined;
    const fallbackSenderName = fallback ? await senders.list(accountId, 'SMS').then((l) => l.find((x) => x.id === fallback.sendernameId || x.name === fallback.sendernameId)?.name ?? fallback.sendernameId) : null;
    const numbers = (payload.phoneNumbers as string[] | undefined) ?? (payload.phoneNumber ? [textOf(payload.phoneNumber)] : []);
    const groups = (await templates.listGroups(accountId, { limit: 100 })).data.map((g) => ({ id: g.id, name: g.name }));
    const spender = previews.spenderOf(row);
    const budget = spender ? await budgets.status(accountId, spender.id) : null;
    const ownHold = spender ? await budgets.holdOf(accountId, row.id) : 0;
    return {
      user,
      // Times on the page are the account's, as on the console.
      timezone: (await accounts.get(accountId)).timezone,
      preview: {
        id: row.id,
        slug: row.slug,
        kind: row.kind,
        status: row.status,
        approvalRequired: row.approval_required === 1,
        expiresAt: toIso(row.expires_at)!,
        expired: row.expires_at <= clock.now(),
        decidedBy: row.decided_by,
      },
      createdBy: row.credential_label,
      fingerprint: previews.shownFingerprint(row),
      decisions: await previews.decisionsOf(accountId, row.id),
      senderName,
      fallbackSenderName,
      rcs: row.kind === 'sms' ? null : { messageType: payload.messageType as MessageType, content: payload.content as Content, fallback: fallback?.message ?? null },
      sms: row.kind === 'sms' ? { text: estimate?.samples[0]?.text ?? textOf(payload.message), segments: estimate?.sms?.segments ?? 0, encoding: estimate?.sms?.encoding ?? 'GSM-7' } : null,
      recipients: { total: estimate?.accepted ?? numbers.length, shown: numbers.slice(0, 10), rejected: estimate?.rejected ?? [], duplicates: estimate?.duplicates ?? 0 },
      samples: samples(estimate),
      selected: Math.min(wanted, Math.max(0, (estimate?.samples.length ?? 0) - 1)),
      picked: pickRecipient(report, row, payload, query.phone, previews.unsubscribeLinkLabel(), { numbers, first: samples(estimate)[0] }),
      mergeValues: report ? valuesView(report, query) : null,
      schedule: estimate?.schedule ? { local: estimate.schedule.localScheduleTime.replace('T', ' ').slice(0, 16), zone: estimate.schedule.effectiveTimezone } : null,
      quietHours: estimate?.quietHours ?? null,
      campaignName: typeof payload.campaignName === 'string' ? payload.campaignName : null,
      credits: estimate?.creditsEstimated ?? 0,
      budget: spender && budget && budget.dailyCredits !== null ? budgetLine(spender.label, { ...budget, dailyCredits: budget.dailyCredits }, row.status, ownHold, estimate?.creditsEstimated ?? 0) : null,
      warnings: parseJson(row.warnings, []),
      templateGroups: groups,
      // Media through this server or as placeholders, never from the assistant's host (share-media.ts).
      media: shareMedia(row, config.publicUrl),
      ...extra,
    };
  }

  const notFound = (req: Request, res: Response): void => {
    const s = req.session;
    sendPage(res, h(PreviewMissingPage, { user: s ? { email: s.user.email, csrfToken: s.csrfToken } : undefined }), 404);
  };

  const slugOf = (req: Request): string | null => {
    const slug = req.params.slug;
    return typeof slug === 'string' && SLUG_RE.test(slug) ? slug : null;
  };

  router.get('/preview/:slug', requireLogin, async (req, res) => {
    const slug = slugOf(req);
    if (!slug) return notFound(req, res);
    try {
      await render(req, res, slug);
    } catch (err) {
      if (isAppError(err) && err.code === 'NOT_FOUND') return notFound(req, res);
      throw err;
    }
  });

  for (const decision of ['approve', 'reject'] as const) {
    router.post(`/preview/:slug/${decision}`, requireLogin, async (req, res) => {
      const slug = slugOf(req);
      if (!slug) return notFound(req, res);
      const s = assertSessionCsrf(req);
      try {
        const shown = typeof (req.body as Record<string, unknown> | undefined)?.fingerprint === 'string' ? String((req.body as Record<string, unknown>).fingerprint) : '';
        await previews.decide(s.accountId, slug, decision === 'approve' ? 'approved' : 'rejected', {
          userId: s.user.id,
          email: s.user.email,
          sessionIdHash: s.idHash,
          clientIp: req.ip ?? req.socket.remoteAddress ?? null,
          userAgent: req.get('user-agent') ?? null,
          shown,
        });
      } catch (err) {
        if (isAppError(err) && err.code === 'NOT_FOUND') return notFound(req, res);
        if (isAppError(err)) return render(req, res, slug, { error: err.message, status: err.status });
        throw err;
      }
      res.redirect(303, `/preview/${slug}`);
    });
  }

  router.post('/preview/:slug/template', requireLogin, async (req, res) => {
    const slug = slugOf(req);
    if (!slug) return notFound(req, res);
    const s = assertSessionCsrf(req);
    let row: PreviewsTable;
    try {
      row = await previews.bySlug(s.accountId, slug);
    } catch {
      return notFound(req, res);
    }
    const form = req.body as Record<string, string | undefined>;
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    try {
      const created = await templates.create(s.accountId, {
        name: String(form.name ?? ''),
        ...(row.kind === 'sms'
          ? { type: 'SMS' as const, content: textOf(payload.message) }
          : { type: 'RCS' as const, content: payload.content as Record<string, unknown>, rcsMessageType: payload.messageType as MessageType }),
        ...(form.templateGroupId ? { templateGroupId: form.templateGroupId } : {}),
      });
      return render(req, res, slug, { notice: `Saved as template "${created.template.name}".` });
    } catch (err) {
      if (isAppError(err) && err.status < 500) return render(req, res, slug, { error: err.message, status: err.status });
      throw err;
    }
  });

  return router;
}

const str = (v: unknown, max: number): string => (typeof v === 'string' && v.length <= max ? v : '');
const pageOf = (v: unknown): number => (typeof v === 'string' && /^[1-9][0-9]{0,5}$/.test(v) ? Number(v) : 1);

/** The values card from the query (?q=, ?field=, ?flagged=1, ?page=, ?v= with ?rp=); anything malformed is ignored. */
function valuesView(report: StoredMergeValues, query: Request['query']): MergeValuesProps {
  const fieldNames = report.fields.map((f) => f.name);
  const field = fieldNames.includes(str(query.field, 200)) ? str(query.field, 200) : '';
  const q = str(query.q, 200);
  const flagged = query.flagged === '1';
  const page = pageOf(query.page);
  const { rows, matched } = queryValues(report, { field: field || undefined, q, flaggedOnly: flagged, offset: (page - 1) * VALUES_PAGE, limit: VALUES_PAGE });
  let recipientsOf: MergeValuesProps['recipientsOf'] = null;
  const v = typeof query.v === 'string' && /^[0-9]{1,6}$/.test(query.v) ? Number(query.v) : null;
  const fi = fieldNames.indexOf(field);
  if (v !== null && fi !== -1 && v < report.fields[fi]!.values.length) {
    const all = recipientsWith(report, fi, v);
    const rp = pageOf(query.rp);
    recipientsOf = { field, index: v, shown: visibleText(report.fields[fi]!.values[v]!.value), phones: all.slice((rp - 1) * RECIPIENTS_PAGE, rp * RECIPIENTS_PAGE), total: all.length, page: rp, pageSize: RECIPIENTS_PAGE };
  }
  return {
    total: report.total,
    stats: fieldStats(report),
    rows: rows.map((r) => ({ ...r, recipients: recipientsWith(report, fieldNames.indexOf(r.field), r.index).slice(0, 3) })),
    matched,
    page,
    pageSize: VALUES_PAGE,
    query: { q, field, flagged },
    recipientsOf,
    worst: worstOf(report),
  };
}

function worstOf(report: StoredMergeValues): MergeValuesProps['worst'] {
  const w = worstValue(report);
  return w && { ...w, recipients: recipientsWith(report, report.fields.findIndex((f) => f.name === w.field), w.index).slice(0, 3) };
}

/** ?phone=: any recipient's whole merged message, rebuilt from the values the preview recorded. */
function pickRecipient(
  report: StoredMergeValues | null,
  row: PreviewsTable,
  payload: Record<string, unknown>,
  phone: unknown,
  unsubscribeLink: string,
  plain: { numbers: string[]; first: ApprovalSample | undefined },
): ApprovalPageProps['picked'] {
  const asked = str(phone, 32).replace(/[\s()-]/g, '');
  if (!asked) return undefined;
  if (!/^\+?[0-9]{6,20}$/.test(asked)) return { sample: null, asked: str(phone, 32) };
  if (!report) {
    // Nothing varies between recipients: everyone gets the first sample's message.
    const digits = asked.replace(/^\+/, '');
    const hit = plain.numbers.some((n) => n.replace(/[^0-9]/g, '') === digits);
    return { sample: hit && plain.first ? { ...plain.first, phoneNumber: `+${digits}` } : null, asked };
  }
  const fallback = (payload.smsFallback as { message?: string } | undefined)?.message ?? null;
  const sample = recipientMessage(
    report,
    asked,
    row.kind === 'sms'
      ? { messageType: null, content: null, fallback: null, sms: textOf(payload.message) }
      : { messageType: payload.messageType as MessageType, content: payload.content as Content, fallback, sms: null },
    unsubscribeLink,
  );
  return { sample, asked };
}

/** ?r=2 → 1 (0-based); anything else → the first recipient. */
function sampleIndex(r: unknown): number {
  const n = typeof r === 'string' && /^[1-9][0-9]?$/.test(r) ? Number(r) : 1;
  return n - 1;
}

/** Samples as stored; estimates stored before samples carried merged content lack those fields. */
function samples(estimate: SendEstimate | null): ApprovalSample[] {
  return (estimate?.samples ?? []).map((x: Partial<SendEstimate['samples'][number]> & Pick<SendEstimate['samples'][number], 'phoneNumber' | 'text' | 'fallbackText'>) => ({
    phoneNumber: x.phoneNumber,
    text: x.text,
    fallbackText: x.fallbackText,
    messageType: x.messageType ?? null,
    content: x.content ?? null,
  }));
}

/**
 * The share page's budget line: what the credential used today, what other approved previews hold, and whether this
 * preview would pass the limit (a waiting one: approving it is refused; an approved one holds its share already).
 */
function budgetLine(label: string, b: BudgetStatus & { dailyCredits: number }, status: string, ownHold: number, cost: number) {
  const heldByOthers = Math.round((b.creditsHeld - ownHold) * 1000) / 1000;
  const open = status === 'pending' || status === 'approved';
  const needed = ownHold > 0 ? 0 : cost;
  return { label, dailyCredits: b.dailyCredits, usedToday: b.creditsUsedToday, heldByOthers, resetsAt: b.resetsAt, wouldPass: open && Math.round((b.creditsUsedToday + b.creditsHeld + needed) * 1000) > Math.round(b.dailyCredits * 1000) };
}
