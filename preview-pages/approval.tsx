import type { Content, MessageType } from '../src/content/index.js';
import { ErrorNote, Layout, PostForm } from './layout.js';
import type { ReplacedMedia } from './phone/index.js';
import { plural, PreviewMockup, WarningsCard } from './preview-mockup.js';
import { formatTime } from './console/format.js';
import { MergeValuesCard, RISK_LABEL, type MergeValuesProps } from './merge-values.js';

/** One of the first recipients with the message merged for them (SendEstimate.samples). */
export interface ApprovalSample {
  phoneNumber: string;
  text: string;
  fallbackText: string | null;
  /** RCS: merged content; null for SMS, and for previews stored before samples carried it. */
  messageType: MessageType | null;
  content: Content | null;
}

export interface ApprovalPageProps {
  user: { email: string; csrfToken: string };
  /** The account's time zone: times are shown in it, as on the console. */
  timezone: string;
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
  /** The credential that made the preview (`key "Assistant"`, `app "Claude"`); null for older previews. */
  createdBy: string | null;
  /** shownFingerprint of what this page renders, posted back with the decision (src/previews/audit.ts). */
  fingerprint: string;
  /** The audit records of this preview's decisions, oldest first. */
  decisions: Array<{ approvalId: string; decision: 'approved' | 'rejected'; decidedAt: string; email: string; clientIp: string | null; userAgent: string | null; shownFingerprint: string }>;
  senderName: string;
  fallbackSenderName: string | null;
  /** RCS: normalized content as previewed (placeholders still in it); shown only when no sample has merged content. */
  rcs: { messageType: MessageType; content: Content; fallback: string | null } | null;
  sms: { text: string; segments: number; encoding: string } | null;
  recipients: { total: number; shown: string[]; rejected: { phoneNumber: string; reason: string }[]; duplicates: number };
  samples: ApprovalSample[];
  /** Index into samples of the recipient the mockup shows (?r=, 1-based in the URL). */
  selected: number;
  /** Any recipient's merged message asked for with ?phone= (overrides `selected`); `missing` when not a recipient. */
  picked?: { sample: ApprovalSample | null; asked: string } | undefined;
  /** Every merged value per field (null: nothing varies between recipients). */
  mergeValues: MergeValuesProps | null;
  schedule: { local: string; zone: string } | null;
  /** Quiet hours (issue #28): how many recipients wait for their window and until when, or a transactional send. */
  quietHours?: { enabled: boolean; transactional: boolean; deferred: number; earliestOpening?: string | undefined; latestOpening?: string | undefined } | null | undefined;
  campaignName: string | null;
  credits: number;
  /** The daily budget of the credential that made the preview, when it has one (issue #29). */
  budget?: { label: string; dailyCredits: number; usedToday: number; heldByOthers: number; resetsAt: string; wouldPass: boolean } | null | undefined;
  warnings: { path: string; code: string; message: string }[];
  templateGroups: { id: string; name: string }[];
  notice?: string | undefined;
  error?: string | undefined;
  /** How the mockup loads media: page sources and placeholders (src/previews/share-media.ts). */
  media?: { src: (url: string) => string; replaced: ReplacedMedia[] } | undefined;
}

/** The warning code of a merge field that is empty or missing for some recipients. */
export const EMPTY_MERGE_CODE = 'empty_merge_value';

const utc = (iso: string): string => `${iso.replace('T', ' ').slice(0, 16)} UTC`;

/** What quiet hours do to this send, in one sentence (the rule is applied again, the same way, when it is sent). */
function quietHoursText(q: NonNullable<ApprovalPageProps['quietHours']>, total: number): string {
  if (q.transactional) return q.enabled ? 'Transactional: exempt — goes out at once, also at night.' : 'Transactional (quiet hours are off for this account).';
  if (q.deferred === 0 || !q.earliestOpening) return 'On — no recipient is inside quiet hours at the planned time.';
  const latest = q.latestOpening ?? q.earliestOpening;
  const until = latest === q.earliestOpening ? `until ${utc(q.earliestOpening)}` : `until their window opens, between ${utc(q.earliestOpening)} and ${utc(latest)}`;
  return `${q.deferred} of ${total} recipient${total === 1 ? '' : 's'} deferred (inside quiet hours, their local time) ${until}; never dropped.`;
}

/** The preview's state in one sentence: final states replace the expiry; an expired one says what to do. */
function stateOf(preview: ApprovalPageProps['preview'], timezone: string): { text: string; cls: string } {
  if (preview.status === 'sent') return { text: 'Sent — this preview is done.', cls: 'status-sent' };
  if (preview.status === 'sending') return { text: 'Being sent now.', cls: 'status-sending' };
  if (preview.expired) return { text: `Expired on ${formatTime(preview.expiresAt, timezone)} — it can no longer be approved or sent. Ask the assistant to preview the message again.`, cls: 'status-expired' };
  if (preview.status === 'rejected') return { text: 'Rejected — it will not be sent.', cls: 'status-rejected' };
  if (preview.status === 'approved') return { text: 'Approved — the assistant can send it now.', cls: 'status-approved' };
  return { text: preview.approvalRequired ? 'Waiting for your approval.' : 'Waiting: approval is off for this account and for the key that made this preview, so an automation key may send it without you. An assistant (OAuth token or approval-bound key) still needs your approval here.', cls: 'status-pending' };
}

/**
 * The share page of an MCP preview (spec §3.5, DESIGN §6): what exactly each recipient would get,
 * to whom, when and for how much, and the person's decision. The decision, the recipient count
 * and the cost come first so they sit above the fold on a phone; then the warnings; then the
 * mockup of one recipient's merged message (switch recipients with ?r=, no script). Everything
 * the assistant wrote is rendered as text by Preact (escaped); the page has no script at all.
 */
export function ApprovalPage(p: ApprovalPageProps) {
  const { preview } = p;
  const open = !preview.expired && (preview.status === 'pending' || preview.status === 'approved' || preview.status === 'rejected');
  const channel = preview.kind === 'sms' ? 'SMS' : 'RCS';
  const state = stateOf(preview, p.timezone);
  const showExpiry = open && preview.status !== 'rejected';
  const emptyMerge = p.warnings.filter((w) => w.code === EMPTY_MERGE_CODE);
  return (
    <Layout title="Approve message" user={p.user} wide>
      <section class="card approval-head" data-testid="approval-head">
        <h1>
          {channel} message to {preview.kind === 'rcs_batch' || p.recipients.total !== 1 ? plural(p.recipients.total, 'recipient') : (p.recipients.shown[0] ?? 'one recipient')}
        </h1>
        <p class={`approval-status ${state.cls}`} data-testid="preview-status">
          {state.text}
        </p>
        <dl class="approval-summary">
          <div>
            <dt>Recipients</dt>
            <dd data-testid="recipient-count">
              {p.recipients.total}
              {p.recipients.duplicates > 0 ? ` (${p.recipients.duplicates} duplicates removed)` : ''}
              {p.recipients.rejected.length > 0 ? ` · ${p.recipients.rejected.length} not sent to` : ''}
            </dd>
          </div>
          {p.mergeValues?.worst ? <WorstValue worst={p.mergeValues.worst} flagged={p.mergeValues.stats.reduce((n, f) => n + f.flaggedValues, 0)} /> : null}
          <div>
            <dt>Estimated cost</dt>
            <dd data-testid="cost">{p.credits} credits</dd>
          </div>
          {p.budget ? (
            <div>
              <dt>Daily budget</dt>
              <dd data-testid="budget" class="budget-line">
                This assistant ({p.budget.label}) has used {p.budget.usedToday} of {p.budget.dailyCredits} credits today
                {p.budget.heldByOthers > 0 ? `, and other approved previews hold ${p.budget.heldByOthers}` : ''}
                {p.budget.wouldPass ? '; this send would pass the limit, so it cannot be approved or sent before the reset' : ''} (resets{' '}
                <time datetime={p.budget.resetsAt}>{utc(p.budget.resetsAt)}</time>).
              </dd>
            </div>
          ) : null}
          <div>
            <dt>When</dt>
            <dd>{p.schedule ? `${p.schedule.local} (${p.schedule.zone})` : 'Immediately when sent'}</dd>
          </div>
          {p.createdBy ? (
            <div>
              <dt>Made by</dt>
              <dd data-testid="created-by">{p.createdBy}</dd>
            </div>
          ) : null}
          {p.quietHours ? (
            <div>
              <dt>Quiet hours</dt>
              <dd data-testid="quiet-hours">{quietHoursText(p.quietHours, p.recipients.total)}</dd>
            </div>
          ) : null}
          {showExpiry ? (
            <div>
              <dt>Decide before</dt>
              <dd data-testid="expires">
                <time datetime={preview.expiresAt}>{formatTime(preview.expiresAt, p.timezone)}</time>
              </dd>
            </div>
          ) : null}
        </dl>
        <ErrorNote message={p.error} />
        {p.notice ? <p class="ok">{p.notice}</p> : null}
        {open ? (
          <div class="decision">
            <PostForm action={`/preview/${preview.slug}/approve`} csrf={p.user.csrfToken}>
              <input type="hidden" name="fingerprint" value={p.fingerprint} />
              <button type="submit" data-testid="approve" disabled={preview.status === 'approved'}>
                {preview.status === 'approved' ? 'Approved' : 'Approve'}
              </button>
            </PostForm>
            <PostForm action={`/preview/${preview.slug}/reject`} csrf={p.user.csrfToken}>
              <input type="hidden" name="fingerprint" value={p.fingerprint} />
              <button type="submit" class="danger" data-testid="reject" disabled={preview.status === 'rejected'}>
                {preview.status === 'rejected' ? 'Rejected' : 'Reject'}
              </button>
            </PostForm>
            {p.warnings.length > 0 ? <a href="#warnings" class="warn-link">{`Read the ${plural(p.warnings.length, 'warning')} first`}</a> : null}
          </div>
        ) : (
          <p class="muted">This preview can no longer be approved or rejected.</p>
        )}
        {p.decisions.length > 0 ? <DecisionRecords decisions={p.decisions} timezone={p.timezone} /> : null}
      </section>
      <WarningsCard warnings={p.warnings} id="warnings" testId="warnings" open={open} />
      {p.mergeValues ? <MergeValuesCard {...p.mergeValues} /> : null}
      <div class="approval-grid" id="mockup">
        <div class="approval-mockup">
          <RecipientSwitch p={p} />
          {emptyMerge.length > 0 ? (
            <div class="merge-alert" role="alert" data-testid="merge-alert">
              <strong>Empty merge values.</strong> Some recipients get a message with a blank where a merge field was:
              <ul>
                {emptyMerge.map((w) => (
                  <li>{w.message}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <div class={emptyMerge.length > 0 ? 'mockup flagged' : 'mockup'} data-testid="mockup">
            <Mockup p={p} />
          </div>
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
              {p.campaignName ? (
                <>
                  <dt>Campaign</dt>
                  <dd>{p.campaignName}</dd>
                </>
              ) : null}
              {p.sms ? (
                <>
                  <dt>SMS</dt>
                  <dd>
                    {plural(p.sms.segments, 'segment')}, {p.sms.encoding}
                  </dd>
                </>
              ) : null}
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
                  {p.recipients.rejected.length > 20 ? <li class="muted">… and {p.recipients.rejected.length - 20} more</li> : null}
                </ul>
              </>
            ) : null}
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

/**
 * The flagged value that can do the most to a recipient, on the first screen (issue #42): among 10,000
 * values an assistant wrote, the one holding a look-alike link or a phone number is named here, above
 * the decision, with who gets it and a link to every flagged value.
 */
function WorstValue({ worst, flagged }: { worst: NonNullable<MergeValuesProps['worst']>; flagged: number }) {
  return (
    <div class="worst-value">
      <dt>Check first</dt>
      <dd data-testid="worst-value">
        <code>{`{{${worst.field}}}`}</code> is{' '}
        <bdi class="flag-text" data-testid="worst-value-text">
          {worst.shown === '' ? '(empty)' : worst.shown}
        </bdi>
        {` for ${plural(worst.count, 'recipient')}`}
        {worst.recipients.length > 0 ? ` (${worst.recipients.join(', ')}${worst.count > worst.recipients.length ? ', …' : ''})` : ''}
        {`: ${worst.risks.map((r) => RISK_LABEL[r.code] ?? r.code).join(', ')}. `}
        <a href="?flagged=1#values">{flagged > 1 ? `All ${plural(flagged, 'flagged value')}` : 'Why it is flagged'}</a>
      </dd>
    </div>
  );
}

/** Links to each sampled recipient (?r=1…5), rendered server-side: the CSP allows no script. */
function RecipientSwitch({ p }: { p: ApprovalPageProps }) {
  const n = p.samples.length;
  if (n === 0) {
    return <p class="recipient-switch muted">{p.recipients.total === 0 ? 'No recipient would get this message.' : 'The message as written (no merged sample available).'}</p>;
  }
  const more = Math.max(0, p.recipients.total - n);
  const picked = p.picked?.sample ?? null;
  const current = picked ?? p.samples[p.selected]!;
  return (
    <nav class="recipient-switch" aria-label="Recipients shown in the phone">
      {p.picked && !picked ? (
        <p class="error" role="alert">
          {`${p.picked.asked} is not a recipient of this message.`}
        </p>
      ) : null}
      <p class="recipient-current" data-testid="sample-current">
        {picked ? 'Recipient ' : `Recipient ${p.selected + 1} of ${p.recipients.total}: `}
        <strong>{current.phoneNumber}</strong>
      </p>
      {n > 1 || more > 0 ? (
        <ul class="recipient-tabs">
          {p.samples.map((s, i) => (
            <li>
              <a href={`?r=${i + 1}#mockup`} class={!picked && i === p.selected ? 'active' : undefined} aria-current={!picked && i === p.selected ? 'page' : undefined} data-testid="sample-link">
                {s.phoneNumber}
              </a>
            </li>
          ))}
          {more > 0 ? <li class="muted">{`and ${more} more`}</li> : null}
        </ul>
      ) : null}
    </nav>
  );
}

/** The phone(s) with the selected recipient's merged message (the same mockup as the in-chat preview). */
function Mockup({ p }: { p: ApprovalPageProps }) {
  return (
    <PreviewMockup
      senderName={p.senderName}
      fallbackSenderName={p.fallbackSenderName}
      rcs={p.rcs}
      sms={p.sms}
      sample={p.picked?.sample ?? p.samples[p.selected]}
      mediaSrc={p.media?.src ?? (() => '')}
      replacedMedia={p.media?.replaced}
    />
  );
}

/** The audit trail of this preview: who decided what, when, from where (issue #29). */
function DecisionRecords({ decisions, timezone }: { decisions: ApprovalPageProps['decisions']; timezone: string }) {
  return (
    <div class="decision-records" data-testid="decision-records">
      <h2>Decisions</h2>
      <ul>
        {decisions.map((d) => (
          <li data-testid="decision-record">
            <strong>{d.decision === 'approved' ? 'Approved' : 'Rejected'}</strong> by {d.email} on <time datetime={d.decidedAt}>{formatTime(d.decidedAt, timezone)}</time>
            <span class="muted small">
              {' '}
              from {d.clientIp ?? 'an unknown address'}
              {d.userAgent ? `, ${d.userAgent}` : ''} · what the page showed: <code>{d.shownFingerprint.slice(0, 16)}</code>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
