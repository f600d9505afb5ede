import type { BudgetOverview, BudgetStatus } from './budgets.js';
import type { DailyUsage } from './schemas.js';
import { PostForm } from '../../preview-pages/layout.js';
import { CreditsChart } from './credits-chart.js';
import { ConsoleFrame, type ConsoleTab, type ConsoleUser } from '../../preview-pages/console/frame.js';

/** A credential's budget as the keys and apps lists show it: limits, today's use, the last 30 days. */
export type BudgetView = BudgetOverview;

const n = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 3 });
const messages = (count: number) => `${n(count)} message${count === 1 ? '' : 's'}`;

/** The limits in words ("50 credits a day · 10 recipients a send", or "No limits"). */
export function limitsText(b: Pick<BudgetStatus, 'dailyCredits' | 'maxRecipients'>): string {
  const parts = [b.dailyCredits !== null ? `${n(b.dailyCredits)} credits a day` : null, b.maxRecipients !== null ? `${n(b.maxRecipients)} recipients a send` : null].filter((x) => x !== null);
  return parts.length === 0 ? 'No limits' : parts.join(' · ');
}

/**
 * One credential's budget cell: its limits, what it used today, the last 30 days with a link to its chart, and a
 * form (CSRF like every console form) that changes or removes the limits — an empty field is no limit.
 */
export function BudgetCell({ budget, usageHref, action, csrf, hidden, name }: { budget: BudgetView; usageHref: string; action: string; csrf: string; hidden: Record<string, string>; name: string }) {
  return (
    <div class="budget">
      <p class="budget-limits" data-testid="limits">
        {limitsText(budget)}
      </p>
      <p class="muted small" data-testid="today">
        Today: {budget.dailyCredits !== null ? `${n(budget.creditsUsedToday)} of ${n(budget.dailyCredits)} credits` : `${n(budget.creditsUsedToday)} credits`}, {messages(budget.messagesToday)}
      </p>
      <p class="muted small">
        <a href={usageHref}>
          Last 30 days: {n(budget.last30.credits)} credits, {messages(budget.last30.messages)}
        </a>
      </p>
      <details class="limits-edit">
        <summary>Change limits</summary>
        <PostForm action={action} class="limits-form" csrf={csrf}>
          {Object.entries(hidden).map(([k, v]) => (
            <input type="hidden" name={k} value={v} />
          ))}
          <label>
            Credits per day (the account's time zone)
            <input name="dailyCredits" inputMode="decimal" placeholder="no limit" value={budget.dailyCredits === null ? '' : String(budget.dailyCredits)} aria-describedby="limits-hint" />
          </label>
          <label>
            Recipients per send
            <input name="maxRecipients" inputMode="numeric" placeholder="no limit" value={budget.maxRecipients === null ? '' : String(budget.maxRecipients)} />
          </label>
          <button type="submit" class="small" aria-label={`Save limits of ${name}`}>
            Save limits
          </button>
        </PostForm>
      </details>
    </div>
  );
}

/** The hint shared by every limits form on a page (one id). */
export function LimitsHint() {
  return (
    <p class="muted small" id="limits-hint">
      Limits hold for every send and preview of the credential, on MCP and REST: a send that would pass the day's credits or reach more recipients is
      refused with BUDGET_EXCEEDED. The day is the account's day (its time zone); an approved preview holds its credits until it is sent, rejected or expires; refunds of failed messages do not give budget back. Leave a field empty for no limit.
    </p>
  );
}

export interface UsagePageProps {
  user: ConsoleUser;
  accountName: string;
  active: ConsoleTab;
  /** `key "Assistant"`, `app "Claude Desktop"`. */
  label: string;
  backHref: string;
  budget: BudgetView;
  days: readonly DailyUsage[];
}

/** One credential's last 30 days: credits charged and messages accepted per day of the account's zone, on the Credits chart. */
export function UsagePage({ user, accountName, active, label, backHref, budget, days }: UsagePageProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active={active} title={`Usage of ${label}`}>
      <section class="card">
        <h1>Usage of {label}</h1>
        <p>
          {limitsText(budget)}. Today: {budget.dailyCredits !== null ? `${n(budget.creditsUsedToday)} of ${n(budget.dailyCredits)} credits` : `${n(budget.creditsUsedToday)} credits`}, {messages(budget.messagesToday)}
          {budget.dailyCredits !== null && budget.creditsHeld > 0 ? `, ${n(budget.creditsHeld)} held by approved previews` : ''}
          {budget.dailyCredits !== null ? ` (resets ${budget.resetsAt.replace('T', ' ').slice(0, 16)} UTC)` : ''}.
        </p>
        <p class="muted">
          Last {days.length} days: {n(budget.last30.credits)} credits charged at send on {messages(budget.last30.messages)} (refunds of failed messages not counted).
        </p>
        <CreditsChart days={days} messagesLabel="Messages accepted per day" />
        <p>
          <a href={backHref}>Back</a>
        </p>
      </section>
    </ConsoleFrame>
  );
}
