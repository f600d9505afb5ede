import { plural, PreviewMockup, WarningsCard } from '../../../../preview-pages/preview-mockup.js';
import { MergeValuesSummaryCard } from '../../../../preview-pages/merge-values.js';
import { mediaPaths, mockupInput, type ViewResult, type ViewState } from './model.js';

const EMPTY_MERGE_CODE = 'empty_merge_value';
const utc = (iso: string): string => `${iso.replace('T', ' ').slice(0, 16)} UTC`;

/** Only a web address may become the link (the share_url is ours; this keeps a bad one inert). */
export function safeLink(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

function stateText(r: ViewResult): { text: string; cls: string } {
  if (r.status === 'sent') return { text: 'Sent — this preview is done.', cls: 'status-sent' };
  if (r.status === 'sending') return { text: 'Being sent now.', cls: 'status-sending' };
  if (r.status === 'rejected') return { text: 'Rejected on the approval page — it will not be sent.', cls: 'status-rejected' };
  if (r.status === 'approved') return { text: 'Approved — the assistant can send it now.', cls: 'status-approved' };
  return r.approval_required
    ? { text: 'Not sent. It waits for your approval on the approval page.', cls: 'status-pending' }
    : { text: 'Not sent yet. Approval is off for this account, so it can be sent without the approval page.', cls: 'status-pending' };
}

export interface PreviewViewProps {
  state: ViewState;
  /** Opens the approval page through the host (a sandboxed view may not navigate by itself). */
  onOpenLink?: ((url: string) => void) | undefined;
}

/**
 * The in-chat preview of rcs_preview / sms_preview: the share page's phone mockup for the first
 * recipient, with recipients, cost, schedule and warnings, and a link to the approval page. It
 * has no approve button on purpose: a click inside the chat is relayed by the host and proves no
 * person made it, so the decision stays on the share page behind login and second factor.
 * Everything comes from the tool result and is rendered as text by Preact.
 */
export function PreviewView({ state, onOpenLink }: PreviewViewProps) {
  if (state.kind === 'waiting') {
    return (
      <main class="narrow mcp-app" data-testid="app-waiting">
        <p class="muted">Preparing the preview…</p>
      </main>
    );
  }
  if (state.kind === 'error') {
    return (
      <main class="narrow mcp-app">
        <p class="error" role="alert" data-testid="app-error">
          {state.message}
        </p>
      </main>
    );
  }
  const r = state.result;
  const channel = r.kind === 'sms' ? 'SMS' : 'RCS';
  const total = r.recipients.accepted;
  const firstNumber = r.samples[0]?.phoneNumber;
  const refused = r.recipients.rejectedCount ?? r.recipients.rejected.length;
  const st = stateText(r);
  const link = safeLink(r.share_url);
  const emptyMerge = r.warnings.some((w) => w.code === EMPTY_MERGE_CODE);
  const mockup = mockupInput(r);
  const replaced = mediaPaths(mockup.sample?.content ?? mockup.rcs?.content);
  return (
    <main class="narrow mcp-app">
      <section class="card approval-head" data-testid="app-head">
        <h1>
          {channel} message to {r.kind === 'rcs_batch' || total !== 1 ? plural(total, 'recipient') : (firstNumber ?? 'one recipient')}
        </h1>
        <p class={`approval-status ${st.cls}`} data-testid="app-status">
          {st.text}
        </p>
        <dl class="approval-summary">
          <div>
            <dt>Recipients</dt>
            <dd data-testid="app-recipients">
              {total}
              {r.recipients.duplicates > 0 ? ` (${r.recipients.duplicates} duplicates removed)` : ''}
              {refused > 0 ? ` · ${refused.toLocaleString('en-US')} not sent to` : ''}
            </dd>
          </div>
          <div>
            <dt>Estimated cost</dt>
            <dd data-testid="app-cost">{`${r.creditsEstimated} credits`}</dd>
          </div>
          <div>
            <dt>When</dt>
            <dd>{r.schedule ? `${r.schedule.localScheduleTime.replace('T', ' ').slice(0, 16)} (${r.schedule.effectiveTimezone})` : 'Immediately when sent'}</dd>
          </div>
          {r.smsSegments !== undefined ? (
            <div>
              <dt>SMS</dt>
              <dd>{`${plural(r.smsSegments, 'segment')}${r.smsEncoding ? `, ${r.smsEncoding}` : ''}`}</dd>
            </div>
          ) : null}
          {r.status === 'pending' || r.status === 'approved' ? (
            <div>
              <dt>Decide before</dt>
              <dd>
                <time datetime={r.expires_at}>{utc(r.expires_at)}</time>
              </dd>
            </div>
          ) : null}
        </dl>
        {link ? (
          <p class="app-approve">
            <a
              class="button"
              href={link}
              target="_blank"
              rel="noopener noreferrer"
              data-testid="approval-link"
              onClick={
                onOpenLink
                  ? (e) => {
                      e.preventDefault();
                      onOpenLink(link);
                    }
                  : undefined
              }
            >
              {r.approval_required && r.status === 'pending' ? 'Open the approval page' : 'Open the preview page'}
            </a>
            <span class="muted small app-approve-note">Approving happens there, after you log in — not in this chat.</span>
          </p>
        ) : null}
      </section>
      <WarningsCard warnings={r.warnings} testId="app-warnings" />
      {r.mergeValues ? <MergeValuesSummaryCard summary={r.mergeValues} /> : null}
      <section class="approval-mockup app-mockup">
        {firstNumber ? (
          <p class="recipient-current" data-testid="app-sample">
            {`Recipient 1 of ${total}: `}
            <strong>{firstNumber}</strong>
          </p>
        ) : (
          <p class="recipient-switch muted">{total === 0 ? 'No recipient would get this message.' : 'The message as written (no merged sample available).'}</p>
        )}
        {replaced.length > 0 ? <p class="muted small">Images and media are not loaded in the chat; the approval page shows them.</p> : null}
        <div class={emptyMerge ? 'mockup flagged' : 'mockup'} data-testid="mockup">
          <PreviewMockup {...mockup} replacedMedia={replaced} mediaSrc={() => ''} />
        </div>
      </section>
    </main>
  );
}
