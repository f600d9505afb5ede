import type { Content, MessageType } from '../src/content/index.js';
import { ErrorNote, Layout, PostForm } from './layout.js';
import { PhoneFrame, PhonePreview, SmsBubble } from './phone/index.js';

export interface ApprovalPageProps {
  user: { email: string; csrfToken: string };
  preview: {
    id: string;
    slug: string;
    kind: 'rcs' | 'rcs_batch' | 'sms';
    status: 'pending' | 'approved' | 'rejected' | 'sending' | 'sent';
    approvalRequired: boolean;
    expiresAt: string;
    expired: boolean;
    decidedBy: string | null;
  };
  senderName: string;
  fallbackSenderName: string | null;
  /** RCS: normalized content as previewed (placeholders still in it). */
  rcs: { messageType: MessageType; content: Content; fallback: string | null } | null;
  sms: { text: string; segments: number; encoding: string } | null;
  recipients: { total: number; shown: string[]; rejected: { phoneNumber: string; reason: string }[]; duplicates: number };
  samples: { phoneNumber: string; text: string; fallbackText: string | null }[];
  schedule: { local: string; zone: string } | null;
  campaignName: string | null;
  credits: number;
  warnings: { path: string; code: string; message: string }[];
  templateGroups: { id: string; name: string }[];
  notice?: string | undefined;
  error?: string | undefined;
}

const STATUS_TEXT: Record<ApprovalPageProps['preview']['status'], string> = {
  pending: 'Waiting for approval',
  approved: 'Approved — the assistant can send it now',
  rejected: 'Rejected — it will not be sent',
  sending: 'Being sent',
  sent: 'Sent',
};

/**
 * The share page of an MCP preview (spec §3.5, DESIGN §6): what exactly would be sent, to whom,
 * when and for how much, and the person's decision. Everything the assistant wrote is rendered as
 * text by Preact (escaped); the page has no script at all.
 */
export function ApprovalPage(p: ApprovalPageProps) {
  const { preview } = p;
  const decidable = !preview.expired && (preview.status === 'pending' || preview.status === 'approved' || preview.status === 'rejected');
  const channel = preview.kind === 'sms' ? 'SMS' : 'RCS';
  return (
    <Layout title="Approve message" user={p.user} wide>
      <section class="card approval-head">
        <h1>
          {channel} message {preview.kind === 'rcs_batch' ? `to ${p.recipients.total} recipients` : `to ${p.recipients.shown[0] ?? 'one recipient'}`}
        </h1>
        <p class={`approval-status status-${preview.status}`} data-testid="preview-status">
          {preview.expired && preview.status !== 'sent' ? 'Expired — ask the assistant to preview it again' : STATUS_TEXT[preview.status]}
        </p>
        <ErrorNote message={p.error} />
        {p.notice ? <p class="ok">{p.notice}</p> : null}
      </section>
      <div class="approval-grid">
        <div>
          {p.rcs ? (
            <PhonePreview messageType={p.rcs.messageType} content={p.rcs.content} senderName={p.senderName} smsFallback={p.rcs.fallback} smsSenderName={p.fallbackSenderName ?? undefined} />
          ) : p.sms ? (
            <PhoneFrame senderName={p.senderName} channel="sms" label="SMS">
              <SmsBubble text={p.sms.text} />
            </PhoneFrame>
          ) : null}
        </div>
        <aside class="approval-details">
          <section class="card">
            <h2>Details</h2>
            <dl class="facts">
              <dt>Sender</dt>
              <dd>{p.senderName}</dd>
              {p.fallbackSenderName ? (
                <>
                  <dt>SMS fallback sender</dt>
                  <dd>{p.fallbackSenderName}</dd>
                </>
              ) : null}
              <dt>Recipients</dt>
              <dd data-testid="recipient-count">
                {p.recipients.total}
                {p.recipients.duplicates > 0 ? ` (${p.recipients.duplicates} duplicates removed)` : ''}
              </dd>
              <dt>Schedule</dt>
              <dd>{p.schedule ? `${p.schedule.local} (${p.schedule.zone})` : 'Immediately when sent'}</dd>
              {p.campaignName ? (
                <>
                  <dt>Campaign</dt>
                  <dd>{p.campaignName}</dd>
                </>
              ) : null}
              <dt>Estimated cost</dt>
              <dd data-testid="cost">{p.credits} credits</dd>
              {p.sms ? (
                <>
                  <dt>SMS</dt>
                  <dd>
                    {p.sms.segments} segment{p.sms.segments === 1 ? '' : 's'}, {p.sms.encoding}
                  </dd>
                </>
              ) : null}
              <dt>Expires</dt>
              <dd>
                <time datetime={preview.expiresAt}>{preview.expiresAt.replace('T', ' ').slice(0, 16)} UTC</time>
              </dd>
            </dl>
            <h3>First recipients</h3>
            <ul class="recipients">
              {p.recipients.shown.map((r) => (
                <li>{r}</li>
              ))}
              {p.recipients.total > p.recipients.shown.length ? <li class="muted">… and {p.recipients.total - p.recipients.shown.length} more</li> : null}
            </ul>
            {p.recipients.rejected.length > 0 ? (
              <>
                <h3>Will not be sent to</h3>
                <ul class="issues">
                  {p.recipients.rejected.slice(0, 20).map((r) => (
                    <li>
                      {r.phoneNumber}: {r.reason}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </section>
          {p.samples.length > 0 ? (
            <section class="card">
              <h2>As the first recipients will see it</h2>
              <ul class="samples">
                {p.samples.map((s) => (
                  <li>
                    <strong>{s.phoneNumber}</strong>: {s.text}
                    {s.fallbackText ? <div class="muted">SMS fallback: {s.fallbackText}</div> : null}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          <section class="card">
            <h2>{p.warnings.length === 0 ? 'No warnings' : `Warnings (${p.warnings.length})`}</h2>
            <ul class="issues">
              {p.warnings.map((w) => (
                <li>
                  <code>{w.path}</code> {w.message}
                </li>
              ))}
            </ul>
          </section>
          <section class="card">
            <h2>Decision</h2>
            {!preview.approvalRequired ? <p class="muted">Approval is switched off for this account; the assistant may send without it. You can still reject.</p> : null}
            {decidable ? (
              <div class="decision">
                <PostForm action={`/preview/${preview.slug}/approve`} csrf={p.user.csrfToken}>
                  <button type="submit" data-testid="approve" disabled={preview.status === 'approved'}>
                    Approve
                  </button>
                </PostForm>
                <PostForm action={`/preview/${preview.slug}/reject`} csrf={p.user.csrfToken}>
                  <button type="submit" class="danger" data-testid="reject" disabled={preview.status === 'rejected'}>
                    Reject
                  </button>
                </PostForm>
              </div>
            ) : (
              <p class="muted">This preview can no longer be approved or rejected.</p>
            )}
          </section>
          <section class="card">
            <h2>Save as template</h2>
            <PostForm action={`/preview/${preview.slug}/template`} class="stack" csrf={p.user.csrfToken}>
              <label>
                Name
                <input name="name" required maxlength={100} />
              </label>
              <label>
                Template group (optional)
                <select name="templateGroupId">
                  <option value="">No group</option>
                  {p.templateGroups.map((g) => (
                    <option value={g.id}>{g.name}</option>
                  ))}
                </select>
              </label>
              <button type="submit" class="secondary">
                Save template
              </button>
            </PostForm>
          </section>
        </aside>
      </div>
    </Layout>
  );
}
