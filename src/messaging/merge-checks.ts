import { checkMergedValue, type Content, type MergedSlot, type MessageType } from '../content/index.js';
import { mergedStrings, readMerged } from '../content/merge-content.js';
import { hasTitleOrDescription } from '../content/title-or-description.js';
import { findPlaceholders } from '../merge/index.js';
import type { ErrorDetail } from '../platform/errors.js';
import type { RejectedRecipient } from './schemas.js';

/** The code a recipient is rejected with when its merged message breaks a content rule. */
export const INVALID_MERGED_CONTENT = 'INVALID_MERGED_CONTENT';

interface Target {
  path: string;
  at: readonly (string | number)[];
  literal: string;
  slot: MergedSlot;
  required: boolean;
}

/** A card (the rich card itself, or one carousel card) whose title or description is merged. */
interface MergedCard {
  path: string;
  titleAt: readonly (string | number)[];
  descriptionAt: readonly (string | number)[];
}

/**
 * What a send's merged strings must satisfy per recipient, worked out once per send from the
 * literal content: only strings whose literal holds a placeholder are re-checked (a literal
 * string was validated with the request and is the same for everybody).
 */
export interface MergePlan {
  targets: Target[];
  cards: MergedCard[];
  /** The SMS text (fallback or standalone) holds a placeholder: path, when it does. */
  smsPath: string | null;
  /** Every placeholder name the message uses, in order of first appearance. */
  names: string[];
}

function slotOf(kind: 'text' | 'url', key: string | number | undefined, messageType: MessageType): MergedSlot {
  if (kind === 'url') return 'buttonUrl';
  if (key === 'text') return messageType === 'textBasic' ? 'textBasic' : 'text';
  if (key === 'title' || key === 'description' || key === 'caption') return key;
  return 'text';
}

/** The plan of an RCS send: content strings and the SMS fallback. */
export function rcsMergePlan(messageType: MessageType, content: Content, fallbackMessage: string | null): MergePlan {
  const names = new Set<string>();
  const targets: Target[] = [];
  const cards = new Map<string, MergedCard>();
  for (const s of mergedStrings(content)) {
    for (const n of findPlaceholders(s.literal)) names.add(n);
    // Our own unsubscribe URL (or the account's, checked when it was set) goes in as is.
    if (s.kind === 'unsubscribe') continue;
    const key = s.at[s.at.length - 1];
    const required = key === 'text' && s.at.length === 1 && (messageType === 'text' || messageType === 'textBasic');
    targets.push({ path: s.path, at: s.at, literal: s.literal, slot: slotOf(s.kind, key, messageType), required });
    // A title or description is a card's (the rich card's own, or a carousel card's).
    if (s.kind === 'text' && (key === 'title' || key === 'description')) {
      const prefix = s.at.slice(0, -1);
      const path = s.card === null ? 'content' : s.path.slice(0, s.path.lastIndexOf('.'));
      if (!cards.has(path)) cards.set(path, { path, titleAt: [...prefix, 'title'], descriptionAt: [...prefix, 'description'] });
    }
  }
  let smsPath: string | null = null;
  if (fallbackMessage !== null && fallbackMessage.includes('{{')) {
    smsPath = 'smsFallback.message';
    for (const n of findPlaceholders(fallbackMessage)) names.add(n);
  }
  return { targets, cards: [...cards.values()], smsPath, names: [...names] };
}

/** The plan of a standalone SMS. */
export function smsMergePlan(message: string): MergePlan {
  const names = findPlaceholders(message);
  return { targets: [], cards: [], smsPath: names.length > 0 ? 'message' : null, names };
}

const NONE: readonly ErrorDetail[] = Object.freeze([]);

/**
 * One recipient's merged message against the rules of its literal fields (DESIGN §6). Returns the
 * problems, empty when the message may be sent. Same code for the preview's dry run and the send.
 */
export function checkMergedMessage(plan: MergePlan, merged: Content | null, smsText: string | null): readonly ErrorDetail[] {
  let out: ErrorDetail[] | null = null;
  if (merged !== null) {
    for (const t of plan.targets) {
      const v = readMerged(merged, t.at);
      // Nothing was filled in (or exactly the literal came back): validated with the request.
      if (typeof v !== 'string' || v === t.literal) continue;
      const issues = checkMergedValue(t.slot, v, t.path, t.required);
      if (issues.length > 0) (out ??= []).push(...issues);
    }
    for (const card of plan.cards) {
      if (!hasTitleOrDescription({ title: readMerged(merged, card.titleAt), description: readMerged(merged, card.descriptionAt) })) {
        (out ??= []).push({ path: card.path, code: 'title_or_description_required', message: 'Title and description are both empty after merge fields are filled in.' });
      }
    }
  }
  if (plan.smsPath !== null && smsText !== null) {
    const issues = checkMergedValue('sms', smsText, plan.smsPath, true);
    if (issues.length > 0) (out ??= []).push(...issues);
  }
  return out ?? NONE;
}

/** The rejection of a recipient whose merged message is invalid, with every problem's path and code. */
export function mergeRejection(e164: string, problems: readonly ErrorDetail[]): RejectedRecipient {
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return {
    phoneNumber: e164,
    code: INVALID_MERGED_CONTENT,
    reason: `After merge fields are filled in for this recipient, ${first.path} is invalid (${first.code}): ${first.message}${more}`,
    details: problems.map((p) => ({ path: p.path, code: p.code, message: p.message })),
  };
}
