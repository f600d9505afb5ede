import type { Action, Content, SuggestedReply } from '../content/index.js';
import { contentItems, shownCardOf } from '../content/walk.js';

/**
 * A button of a received message on the virtual phone, with the target its form posts
 * (`s:<chip>`, `c:<card>:<button>`, see parseTapTarget). The page draws these and the tap is
 * resolved against the same list, so the two cannot number the buttons differently.
 */
export type TapButton =
  | { placement: 'chip'; target: string; index: number; reply: SuggestedReply | undefined; action: Action | undefined }
  | { placement: 'cardButton'; target: string; index: number; card: number; reply: undefined; action: Action };

/** The chips (whatever the type; the page hides a textBasic's) and the card buttons of the cards the type shows. */
export function tapButtons(messageType: string | undefined, content: Content): TapButton[] {
  const out: TapButton[] = [];
  for (const item of contentItems(content)) {
    if (item.kind !== 'button') continue;
    if (item.placement === 'chip') {
      out.push({ placement: 'chip', target: `s:${item.index}`, index: item.index, reply: item.reply, action: item.action });
      continue;
    }
    const card = shownCardOf(messageType, item);
    if (card !== null) out.push({ placement: 'cardButton', target: `c:${card}:${item.index}`, index: item.index, card, reply: undefined, action: item.action });
  }
  return out;
}
