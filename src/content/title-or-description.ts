/**
 * A card shows a title or a description (§2.2): the rich card itself and every carousel card.
 * Decided here once: the schemas check it on the literal content, the send checks it again on
 * each recipient's merged content (a placeholder may fill both with nothing).
 */

/** Text the person can read: a string that is not empty or whitespace only. */
export const hasText = (v: unknown): boolean => typeof v === 'string' && v.trim() !== '';

export function hasTitleOrDescription(card: { title?: unknown; description?: unknown }): boolean {
  return hasText(card.title) || hasText(card.description);
}
