import type { InboxItem } from './inbox-schemas.js';
import type { InboxState } from './audit.js';
import { ConsoleFrame, type ConsoleUser } from '../../preview-pages/console/frame.js';
import { formatTime } from '../../preview-pages/console/format.js';

export interface ApprovalsPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  /** The state shown (null: all). */
  state: InboxState | null;
  items: InboxItem[];
  nextCursor: string | null;
  /** Whether this page continues an earlier one (a "newest" link is shown). */
  continued: boolean;
}

const FILTERS: Array<[InboxState | null, string]> = [
  ['waiting', 'Waiting'],
  ['approved', 'Approved'],
  ['rejected', 'Rejected'],
  ['expired', 'Expired'],
  ['sent', 'Sent'],
  [null, 'All'],
];

const STATE_LABEL: Record<InboxState, string> = { waiting: 'Waiting', approved: 'Approved', rejected: 'Rejected', expired: 'Expired', sent: 'Sent' };
const STATE_CLASS: Record<InboxState, string> = { waiting: 'status-pending', approved: 'status-approved', rejected: 'status-rejected', expired: 'status-expired', sent: 'status-sent' };

const hrefOf = (state: InboxState | null, cursor?: string): string => {
  const q = new URLSearchParams();
  q.set('status', state ?? 'all');
  if (cursor) q.set('cursor', cursor);
  return `/console/approvals?${q.toString()}`;
};

/**
 * The approvals inbox (issue #29): what waits for a person and what was decided, newest first,
 * with the credential that made each preview; each row opens its share page, where the decision
 * is made. The approval history downloads as CSV.
 */
export function ApprovalsPage({ user, accountName, timezone, state, items, nextCursor, continued }: ApprovalsPageProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="approvals" title="Approvals">
      <section class="card">
        <h1>Approvals</h1>
        <p class="muted">
          Messages assistants and approval-bound keys want to send. Open one to see exactly what each recipient gets, then approve or reject it on its page.
        </p>
        <nav class="filters" aria-label="Filter by state">
          {FILTERS.map(([s, label]) => (
            <a href={hrefOf(s)} class={s === state ? 'filter active' : 'filter'} aria-current={s === state ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        {items.length === 0 ? (
          <p class="muted" data-testid="inbox-empty">
            {state === 'waiting' ? 'Nothing is waiting for your approval.' : 'No previews here.'}
          </p>
        ) : (
          <table class="inbox-table" data-testid="inbox">
            <thead>
              <tr>
                <th>Message</th>
                <th>State</th>
                <th>Channel</th>
                <th>Recipients</th>
                <th>Cost</th>
                <th>Made by</th>
                <th>Created</th>
                <th>Expires</th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr data-preview-id={p.previewId}>
                  <td data-label="Message">
                    <a href={p.shareUrl}>{p.summary || p.previewId}</a>
                  </td>
                  <td data-label="State">
                    <span class={`badge ${STATE_CLASS[p.state]}`}>{STATE_LABEL[p.state]}</span>
                    {p.decidedBy ? <span class="muted small"> by {p.decidedBy}</span> : null}
                  </td>
                  <td data-label="Channel">{p.channel}</td>
                  <td data-label="Recipients">{p.recipients}</td>
                  <td data-label="Cost">{p.creditsEstimated} credits</td>
                  <td data-label="Made by">{p.createdBy.label}</td>
                  <td data-label="Created">{formatTime(p.createdAt, timezone)}</td>
                  <td data-label="Expires">{formatTime(p.expiresAt, timezone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {nextCursor || continued ? (
          <p class="pager">
            {continued ? <a href={hrefOf(state)}>← Newest</a> : null}
            {continued && nextCursor ? ' · ' : null}
            {nextCursor ? <a href={hrefOf(state, nextCursor)}>Older →</a> : null}
          </p>
        ) : null}
      </section>
      <section class="card">
        <h2>Approval history</h2>
        <p class="muted">
          Every approval and rejection is recorded with the person, the time, their address and browser, and a fingerprint of exactly what their page showed. Records cannot be changed or deleted.
        </p>
        <p>
          <a href="/console/approvals/export.csv" download>
            Download the approval history (CSV)
          </a>
        </p>
      </section>
    </ConsoleFrame>
  );
}
