import type { BatchJobItem, PendingPreviewItem, RecentMessageItem } from './sources.js';
import { ConsoleFrame, Placeholder, type ConsoleUser } from '../../preview-pages/console/frame.js';
import { formatTime } from '../../preview-pages/console/format.js';

export interface OverviewPageProps {
  user: ConsoleUser;
  account: { name: string; credits: number; timezone: string; approvalRequired: boolean };
  counts: { activeKeys: number; connectedApps: number; senders: number };
  /** null: the providing area is not installed yet. */
  pendingPreviews: PendingPreviewItem[] | null;
  recentMessages: RecentMessageItem[] | null;
  batchJobs: BatchJobItem[] | null;
}

export function OverviewPage({ user, account, counts, pendingPreviews, recentMessages, batchJobs }: OverviewPageProps) {
  const tz = account.timezone;
  return (
    <ConsoleFrame user={user} accountName={account.name} active="overview" title="Console">
      <section class="card">
        <h1>Overview</h1>
        <div class="stats">
          <div class="stat">
            <span class="stat-value">{account.credits.toLocaleString('en-US', { maximumFractionDigits: 3 })}</span>
            <span class="stat-label">credits</span>
          </div>
          <div class="stat">
            <span class="stat-value">{account.approvalRequired ? 'On' : 'Off'}</span>
            <span class="stat-label">approval required</span>
          </div>
          <div class="stat">
            <span class="stat-value">{counts.activeKeys}</span>
            <span class="stat-label">active API keys</span>
          </div>
          <div class="stat">
            <span class="stat-value">{counts.connectedApps}</span>
            <span class="stat-label">connected apps</span>
          </div>
          <div class="stat">
            <span class="stat-value">{counts.senders}</span>
            <span class="stat-label">senders</span>
          </div>
        </div>
        <p class="muted small">Times are shown in {tz}.</p>
      </section>

      <section class="card" id="pending-previews">
        <h2>Previews awaiting approval</h2>
        <p class="small">
          <a href="/console/approvals">All approvals and their history →</a>
        </p>
        {pendingPreviews === null ? (
          <Placeholder>Previews created by assistants will be listed here.</Placeholder>
        ) : pendingPreviews.length === 0 ? (
          <p class="muted">Nothing is waiting for your approval.</p>
        ) : (
          <div class="wide-table" tabindex={0} role="region" aria-label="Previews awaiting approval">
            <table class="stack-table">
            <thead>
              <tr>
                <th>Preview</th>
                <th>Channel</th>
                <th>Recipients</th>
                <th>Created</th>
                <th>Expires</th>
              </tr>
            </thead>
            <tbody>
              {pendingPreviews.map((p) => (
                <tr>
                  <td data-label="Preview">
                    <a href={p.shareUrl}>{p.summary || p.id}</a>
                  </td>
                  <td data-label="Channel">{p.channel}</td>
                  <td data-label="Recipients">{p.recipients}</td>
                  <td data-label="Created">{formatTime(p.createdAt, tz)}</td>
                  <td data-label="Expires">{formatTime(p.expiresAt, tz)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
        )}
      </section>

      <section class="card" id="batch-jobs">
        <h2>Batch progress</h2>
        {batchJobs === null ? (
          <Placeholder>Batch and scheduled jobs will be listed here.</Placeholder>
        ) : batchJobs.length === 0 ? (
          <p class="muted">No batch jobs yet.</p>
        ) : (
          <div class="wide-table" tabindex={0} role="region" aria-label="Batch progress">
            <table class="stack-table">
            <thead>
              <tr>
                <th>Job</th>
                <th>Status</th>
                <th>Progress</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {batchJobs.map((j) => (
                <tr>
                  <td data-label="Job">
                    {j.campaignName ?? <code>{j.id}</code>}
                  </td>
                  <td data-label="Status">
                    <span class="badge">{j.status}</span>
                  </td>
                  <td data-label="Progress">
                    <progress max={Math.max(1, j.total)} value={j.processed} /> {j.processed} / {j.total}
                    {j.failed > 0 ? <span class="error"> · {j.failed} failed</span> : null}
                  </td>
                  <td data-label="Created">{formatTime(j.createdAt, tz)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
        )}
      </section>

      <section class="card" id="recent-messages">
        <h2>Recent messages</h2>
        {recentMessages === null ? (
          <Placeholder>The latest messages and their delivery status will be listed here.</Placeholder>
        ) : recentMessages.length === 0 ? (
          <p class="muted">No messages yet.</p>
        ) : (
          <div class="wide-table" tabindex={0} role="region" aria-label="Recent messages">
            <table class="stack-table">
            <thead>
              <tr>
                <th>To</th>
                <th>Channel</th>
                <th>Status</th>
                <th>Sender</th>
                <th>Approved by</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {recentMessages.map((m) => (
                <tr>
                  <td data-label="To">{m.to}</td>
                  <td data-label="Channel">{m.channel}</td>
                  <td data-label="Status">
                    <span class="badge">{m.status}</span>
                  </td>
                  <td data-label="Sender">{m.senderName ?? '—'}</td>
                  <td data-label="Approved by" data-testid="approved-by">{m.approvedBy ? `${m.approvedBy}, ${formatTime(m.approvedAt, tz)}` : '—'}</td>
                  <td data-label="Created">{formatTime(m.createdAt, tz)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
        )}
      </section>
    </ConsoleFrame>
  );
}
