import type { Action, Content, SuggestedReply } from '../content/schemas.js';
import { contentItems } from '../content/walk.js';
import type { EngagementContact, EngagementEvents } from '../inbound/events.js';
import type { MessageEvents } from '../messaging/events.js';
import type { Tx } from '../platform/db/database.js';
import { parseJson } from '../platform/db/sql.js';
import type { InteractionsTable } from '../inbound/tables.js';
import type { MessageStatus, MessagesTable } from '../messaging/tables.js';
import type { PreviewEvents } from '../previews/events.js';
import { buttonInteractionBody, consentReviewBody, deliveryStatusBody, inboundBody, optedOutBody, previewBody, reportedSteps, resubscribedBody, type PayloadContact } from './events.js';
import type { EmitTarget, WebhooksService } from './service.js';

/**
 * The webhookUrl of the button that was tapped, found in the message as sent (merged content):
 * reply chips, action chips, card buttons of a rich card and of every carousel card. Matched by
 * text and postbackData (and kind), chips first; null when the button has none or cannot be told
 * apart.
 */
export function buttonWebhookUrl(content: unknown, tap: { actionType: InteractionsTable['action_type']; buttonText: string | null; postbackData: string | null }): string | null {
  const buttons = contentItems((content ?? {}) as Content).filter((i) => i.kind === 'button');
  const candidates: Array<{ kind: 'reply' | 'postback' | 'action'; b: SuggestedReply | Action }> = [];
  const actionKind = (a: Action): 'postback' | 'action' => (a.type === 'postback' ? 'postback' : 'action');
  for (const chip of buttons) {
    if (chip.placement !== 'chip') continue;
    if (chip.reply) candidates.push({ kind: 'reply', b: chip.reply });
    else if (chip.action) candidates.push({ kind: actionKind(chip.action), b: chip.action });
  }
  for (const button of buttons) if (button.placement === 'cardButton') candidates.push({ kind: actionKind(button.action), b: button.action });
  const match = candidates.find(
    ({ kind, b }) => kind === tap.actionType && b.text === tap.buttonText && (typeof b.postbackData === 'string' ? b.postbackData : null) === tap.postbackData,
  );
  const url = match?.b.webhookUrl;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return null;
  return URL.canParse(url) ? url : null;
}

const toPayloadContact = (c: EngagementContact): PayloadContact => ({ id: c.id, phone: c.phone, name: c.name });

async function contactOfMessage(tx: Tx, m: MessagesTable): Promise<PayloadContact> {
  if (!m.contact_id) return { id: null, phone: `+${m.phone}`, name: null };
  const c = await tx.selectFrom('contacts').select(['id', 'first_name', 'last_name']).where('id', '=', m.contact_id).where('account_id', '=', m.account_id).executeTakeFirst();
  const name = c ? [c.first_name, c.last_name].filter((x) => x && x.trim()).join(' ').trim() : '';
  return { id: c?.id ?? null, phone: `+${m.phone}`, name: name === '' ? null : name };
}

/**
 * delivery_status for every reported status change of an outbound message: SENT, DELIVERED, READ,
 * FAILED (with its error and the fallback used). A change that skips a step (SENT → READ in one
 * receipt batch) reports the skipped step first, so receivers see every status once.
 */
export async function emitDeliveryStatus(webhooks: WebhooksService, tx: Tx, message: MessagesTable, previous: MessageStatus): Promise<void> {
  const steps = reportedSteps(message, previous);
  if (steps.length === 0 || !(await webhooks.hasTargets(tx, message.account_id, 'delivery_status'))) return;
  const contact = await contactOfMessage(tx, message);
  for (const s of steps) await webhooks.emit(tx, message.account_id, 'delivery_status', deliveryStatusBody(message, s.status, s.previous, contact));
}

/** rcs_message_received / sms_message_received for an incoming message. */
export async function emitInboundMessage(webhooks: WebhooksService, tx: Tx, message: MessagesTable, contact: EngagementContact): Promise<void> {
  await webhooks.emit(tx, message.account_id, message.type === 'SMS' ? 'sms_message_received' : 'rcs_message_received', inboundBody(message, toPayloadContact(contact)));
}

/**
 * button_interaction for a tap (spec §6): to the button's own webhookUrl when it has one,
 * otherwise to the account's endpoints subscribed to button_interaction. Replies typed by the
 * person are incoming messages, not button interactions.
 */
export async function emitButtonInteraction(webhooks: WebhooksService, tx: Tx, interaction: InteractionsTable, contact: EngagementContact): Promise<void> {
  if (interaction.type !== 'button_click') return;
  let target: EmitTarget = { kind: 'subscribed' };
  if (interaction.message_id) {
    const msg = await tx.selectFrom('messages').select(['content']).where('id', '=', interaction.message_id).where('account_id', '=', interaction.account_id).executeTakeFirst();
    const url = buttonWebhookUrl(parseJson<unknown>(msg?.content ?? null, {}), {
      actionType: interaction.action_type,
      buttonText: interaction.button_text,
      postbackData: interaction.postback_data,
    });
    if (url) target = { kind: 'url', url, source: 'button' };
  }
  await webhooks.emit(tx, interaction.account_id, 'button_interaction', buttonInteractionBody(interaction, toPayloadContact(contact)), target);
}

/** The listeners src/context.ts registers with the messaging and engagement event hubs. */
export function webhookListeners(webhooks: WebhooksService): { messages: MessageEvents; engagement: Partial<EngagementEvents>; previews: PreviewEvents } {
  return {
    previews: {
      created: async (tx, p) => void (await webhooks.emit(tx, p.accountId, 'preview.created', previewBody(p))),
      decided: async (tx, p, record) => void (await webhooks.emit(tx, p.accountId, record.decision === 'approved' ? 'preview.approved' : 'preview.rejected', previewBody(p, record))),
      expired: async (tx, p) => void (await webhooks.emit(tx, p.accountId, 'preview.expired', previewBody(p))),
    },
    messages: {
      statusChanged: (tx, message, previous) => emitDeliveryStatus(webhooks, tx, message, previous),
      wantsStatusChanges: (tx, accountId) => webhooks.hasTargets(tx, accountId, 'delivery_status'),
    },
    engagement: {
      inboundReceived: (tx, message, contact) => emitInboundMessage(webhooks, tx, message, contact),
      interactionRecorded: (tx, interaction, contact) => emitButtonInteraction(webhooks, tx, interaction, contact),
      // Every source of an opt-out goes through OptOutService (keyword, chip, link, a person confirming a review).
      optedOut: async (tx, e) => void (await webhooks.emit(tx, e.accountId, 'contact.opted_out', optedOutBody(e))),
      optedIn: async (tx, e) => void (await webhooks.emit(tx, e.accountId, 'contact.resubscribed', resubscribedBody(e))),
      reviewChanged: async (tx, e) => void (await webhooks.emit(tx, e.accountId, 'consent.review', consentReviewBody(e))),
    },
  };
}
