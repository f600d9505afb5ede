import { z } from 'zod';
import type { SendEstimate } from '../src/messaging/send-service.js';
import { parseJson } from '../src/platform/db/sql.js';
import type { PreviewsService } from '../src/previews/service.js';
import { PreviewResultSchema, type PreviewResult } from '../src/previews/schemas.js';
import type { SendersService } from '../src/senders/service.js';

/**
 * What the in-chat preview (MCP App) needs beyond the preview result to draw the share page's
 * phone mockup: the senders' display names and the first recipient's merged RCS message. The
 * preview result keeps only the merged texts (the merged content of five samples would repeat the
 * payload five times); one merged message is what the mockup shows first.
 */
export const PreviewDisplaySchema = z
  .object({
    senderName: z.string().describe('Name shown in the phone header (the RCS agent or SMS sender).'),
    fallbackSenderName: z.string().nullable().describe('Sender name of the SMS fallback; null without one.'),
    messageType: z.string().nullable().describe("RCS: the first recipient's message type; null for SMS."),
    content: z.record(z.string(), z.unknown()).nullable().describe("RCS: the first recipient's content with merge fields filled in; null for SMS."),
  })
  .describe('For the in-chat preview: what its phone mockup draws, as on the share page. Nothing to act on.');
export type PreviewDisplay = z.infer<typeof PreviewDisplaySchema>;

/** The output of rcs_preview and sms_preview: the preview result plus what the in-chat mockup draws. */
export const PreviewToolOutputSchema = PreviewResultSchema.extend({ display: PreviewDisplaySchema.optional() });
export type PreviewToolOutput = z.infer<typeof PreviewToolOutputSchema>;

export interface PreviewDisplayDeps {
  previews: Pick<PreviewsService, 'get'>;
  senders: Pick<SendersService, 'list'>;
}

/**
 * Adds `display` to a preview result. Sender names are resolved as the share page does (an id
 * that no longer names a sender is shown as given); the merged message is the stored estimate's
 * first sample, the one the share page shows first.
 */
export async function withPreviewDisplay(deps: PreviewDisplayDeps, accountId: string, result: PreviewResult): Promise<PreviewToolOutput> {
  const [row, senders] = await Promise.all([deps.previews.get(accountId, result.preview_id), deps.senders.list(accountId)]);
  const payload = result.payload;
  const sendernameId = (typeof payload.sendernameId === 'string' ? payload.sendernameId : '');
  const fallback = payload.smsFallback as { sendernameId?: unknown } | undefined;
  const fallbackId = fallback ? (typeof fallback.sendernameId === 'string' ? fallback.sendernameId : '') : null;
  const first = parseJson<SendEstimate | null>(row.estimate, null)?.samples[0];
  return {
    ...result,
    display: {
      senderName: senders.find((s) => s.id === sendernameId)?.name ?? sendernameId,
      fallbackSenderName: fallbackId === null ? null : (senders.find((s) => s.type === 'SMS' && (s.id === fallbackId || s.name === fallbackId))?.name ?? fallbackId),
      messageType: result.kind === 'sms' ? null : (first?.messageType ?? null),
      content: result.kind === 'sms' ? null : ((first?.content as Record<string, unknown> | null | undefined) ?? null),
    },
  };
}
