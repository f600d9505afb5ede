import type { StoredSandboxPreview } from './schemas.js';
import { Layout } from '../../preview-pages/layout.js';
import { PhonePreview } from '../../preview-pages/phone/index.js';

export interface SandboxPageProps {
  preview: StoredSandboxPreview;
  now: number;
  senderName: string;
  /** Maps this server's sample URLs to relative paths. */
  mediaSrc: (url: string) => string;
}

function untilLabel(ms: number): string {
  if (ms <= 0) return 'now';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `in ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.floor(minutes / 60);
  return `in ${hours} hour${hours === 1 ? '' : 's'}`;
}

const utcLabel = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The page behind a sandbox share_url: the phone mockup, warnings, replaced media and expiry. */
export function SandboxPage({ preview, now, senderName, mediaSrc }: SandboxPageProps) {
  const expires = preview.preview.expires_at;
  const { warnings, sandbox, sms } = preview;
  return (
    <Layout title="Sandbox preview" wide>
      <section class="card sandbox-intro">
        <h1>Sandbox preview</h1>
        <p class="muted">
          Made in the public sandbox: nothing was sent and nothing can be sent from here. Merge fields show sample values, e.g. <code>{'{{contact_first_name}}'}</code> → {sandbox.merge_values.contact_first_name ?? 'Alex'}.
        </p>
        <p class="sandbox-expiry">
          Expires <time datetime={expires}>{utcLabel(expires)}</time> ({untilLabel(Date.parse(expires) - now)}).
        </p>
      </section>
      <div class="sandbox-grid">
        <PhonePreview
          messageType={preview.messageType}
          content={preview.content}
          senderName={senderName}
          smsFallback={preview.smsFallback?.message ?? null}
          replacedMedia={sandbox.media}
          mediaSrc={mediaSrc}
        />
        <aside class="sandbox-details">
          <section class="card">
            <h2>{warnings.length === 0 ? 'No warnings' : `Warnings (${warnings.length})`}</h2>
            {warnings.length === 0 ? (
              <p class="muted">The content passed validation without warnings.</p>
            ) : (
              <ul class="issues">
                {warnings.map((w) => (
                  <li class="issue">
                    <code class="issue-path">{w.path}</code> <span class="issue-code">{w.code}</span>
                    <span class="issue-message">{w.message}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          {sandbox.media.length > 0 ? (
            <section class="card">
              <h2>{`Media not shown (${sandbox.media.length})`}</h2>
              <p class="muted">Only the sandbox samples are loaded. These URLs passed validation and are shown as a placeholder:</p>
              <ul class="issues">
                {sandbox.media.map((m) => (
                  <li class="issue">
                    <code class="issue-path">{m.path}</code> <span class="issue-message">{`a file on ${m.host}`}</span>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {sms ? (
            <section class="card">
              <h2>SMS fallback cost</h2>
              <dl class="facts">
                <dt>Encoding</dt>
                <dd>{sms.encoding}</dd>
                <dt>Segments</dt>
                <dd>{sms.segments}</dd>
                <dt>{sms.encoding === 'GSM-7' ? 'Septets' : 'UTF-16 units'}</dt>
                <dd>{sms.units}</dd>
                {sms.unicodeCharacters.length > 0 ? (
                  <>
                    <dt>Forced Unicode</dt>
                    <dd>{sms.unicodeCharacters.join(' ')}</dd>
                  </>
                ) : null}
              </dl>
              <p class="muted">Counted on the text as written; placeholders are filled per recipient when sent.</p>
            </section>
          ) : null}
          <section class="card">
            <h2>Details</h2>
            <dl class="facts">
              <dt>Message type</dt>
              <dd>{preview.messageType}</dd>
              <dt>Preview</dt>
              <dd>
                <code>{preview.preview.id}</code>
              </dd>
              <dt>Created</dt>
              <dd>{utcLabel(preview.preview.created_at)}</dd>
            </dl>
          </section>
        </aside>
      </div>
    </Layout>
  );
}
