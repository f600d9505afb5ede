import type { DailyUsage, LedgerEntry } from './schemas.js';
import { CreditsChart } from './credits-chart.js';
import { formatTime } from '../../preview-pages/console/format.js';
import { ConsoleFrame, type ConsoleUser } from '../../preview-pages/console/frame.js';

/** What the Credits page shows; built by src/billing/console-routes.ts. */
export interface CreditsPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  balance: number;
  days: readonly DailyUsage[];
  entries: readonly LedgerEntry[];
  /** Link to the next (older) page of the history; null on the last page. */
  olderHref: string | null;
  /** True when this is not the first page. */
  paged: boolean;
  /** A fixed message when the page's cursor was not usable. */
  error?: string | undefined;
}

const KIND_LABELS: Record<LedgerEntry['kind'], string> = {
  opening: 'Opening balance',
  debit: 'Send charged',
  refund: 'Refund',
  reprice: 'Re-priced',
  topup: 'Top-up',
  adjustment: 'Adjustment',
};

const signed = (n: number) => `${n > 0 ? '+' : n < 0 ? '−' : ''}${Math.abs(n).toLocaleString('en-US', { maximumFractionDigits: 3 })}`;

/** Balance, a chart of the last days, and the credit history (every change of the balance with its reason). */
export function CreditsPage({ user, accountName, timezone, balance, days, entries, olderHref, paged, error }: CreditsPageProps) {
  const spent = days.reduce((s, d) => s + d.spent, 0);
  const sent = days.reduce((s, d) => s + Object.values(d.messages).reduce((a, b) => a + b, 0), 0);
  return (
    <ConsoleFrame user={user} accountName={accountName} active="credits" title="Credits">
      <section class="card">
        <h1>Credits</h1>
        <p class="balance">
          <span class="balance-value">{balance.toLocaleString('en-US', { maximumFractionDigits: 3 })}</span> credits
        </p>
        <p class="muted">
          Last {days.length} days: {spent.toLocaleString('en-US', { maximumFractionDigits: 3 })} credits spent on {sent} messages (refunds counted).
        </p>
        <CreditsChart days={days} />
      </section>
      <section class="card">
        <h2>History</h2>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        {entries.length === 0 ? (
          <p class="muted">No changes to show.</p>
        ) : (
          <div class="wide-table" tabindex={0} role="region" aria-label="Credit ledger">
            <table class="ledger">
            <thead>
              <tr>
                <th>When</th>
                <th>What</th>
                <th>Amount</th>
                <th>Reason</th>
                <th>For</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr>
                  <td>{formatTime(e.createdAt, timezone)}</td>
                  <td>{KIND_LABELS[e.kind]}</td>
                  <td class={e.amount < 0 ? 'amount debit' : 'amount credit'}>{signed(e.amount)}</td>
                  <td>{e.reason}</td>
                  <td>{e.jobId ? <code class="small">{e.jobId}</code> : e.messageId ? <code class="small">{e.messageId}</code> : <span class="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
        )}
        <p class="pager">
          {paged ? <a href="/console/credits">Newest</a> : null}
          {paged && olderHref ? ' · ' : null}
          {olderHref ? <a href={olderHref}>Older entries</a> : null}
        </p>
      </section>
    </ConsoleFrame>
  );
}
