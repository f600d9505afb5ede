import type { Content, MessageType } from '../src/content/index.js';
import { plural } from '../src/platform/plural.js';
import { PhoneFrame, PhonePreview, SmsBubble, type ReplacedMedia } from './phone/index.js';

/** One recipient's merged message, as a preview's sample carries it. */
export interface MockupSample {
  text: string;
  fallbackText: string | null;
  /** RCS: merged content; null for SMS, and for previews stored before samples carried it. */
  messageType: MessageType | null;
  content: Content | null;
}

export interface PreviewMockupProps {
  senderName: string;
  fallbackSenderName: string | null;
  /** RCS: content as previewed (placeholders still in it); drawn only when the sample has no merged content. */
  rcs: { messageType: MessageType; content: Content; fallback: string | null } | null;
  sms: { text: string } | null;
  /** The recipient whose merged message the phone shows. */
  sample: MockupSample | undefined;
  /** Media the page must not load, by JSON path of the URL (the in-chat preview loads none). */
  replacedMedia?: readonly ReplacedMedia[] | undefined;
  mediaSrc?: ((url: string) => string) | undefined;
}

/**
 * The phone(s) of a preview: the recipient's merged message, or the message as written when no
 * sample has it. One component for the share page (preview-pages/approval.tsx) and the in-chat
 * preview (src/mcp/apps), so a person sees the same mockup in both places.
 */
export function PreviewMockup({ senderName, fallbackSenderName, rcs, sms, sample, replacedMedia, mediaSrc }: PreviewMockupProps) {
  if (sms) {
    return (
      <PhoneFrame senderName={senderName} channel="sms" label="SMS">
        <SmsBubble text={sample?.text ?? sms.text} />
      </PhoneFrame>
    );
  }
  if (!rcs) return null;
  const merged = sample?.content && sample.messageType ? { messageType: sample.messageType, content: sample.content } : null;
  const fallback = rcs.fallback === null ? null : (sample?.fallbackText ?? rcs.fallback);
  return (
    <>
      {merged ? null : <p class="muted small">Shown as written, with its merge fields not yet filled in.</p>}
      <PhonePreview
        messageType={merged?.messageType ?? rcs.messageType}
        content={merged?.content ?? rcs.content}
        senderName={senderName}
        smsFallback={fallback}
        smsSenderName={fallbackSenderName ?? undefined}
        replacedMedia={replacedMedia}
        mediaSrc={mediaSrc}
        reveal
      />
    </>
  );
}

/** "1 recipient", "3 warnings": the one helper of every counted text (src/platform/plural.ts). */
export { plural };

export interface PreviewWarning {
  code: string;
  path: string;
  message: string;
}

/** The warnings of a preview, shown before the message on the share page and in the in-chat preview alike. */
export function WarningsCard({ warnings, id, testId, open = true }: { warnings: readonly PreviewWarning[]; id?: string; testId: string; /** Still to be decided: the heading asks to check. */ open?: boolean }) {
  if (warnings.length === 0) return null;
  return (
    <section class="card warnings" id={id} data-testid={testId}>
      <h2>{open ? `${plural(warnings.length, 'warning')} — check before approving` : plural(warnings.length, 'warning')}</h2>
      <ul class="issues">
        {warnings.map((w) => (
          <li data-warning-code={w.code}>
            <span class="issue-code">{w.code}</span> <code>{w.path}</code>
            <span class="issue-message">{w.message}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
