import { describe, expect, it } from 'vitest';
import type { Content } from '../../../src/content/schemas.js';
import { tapButtons } from '../../../src/inbound/tap-buttons.js';
import { actionOf, card, chipAction, reply } from '../content/fixtures.js';

const asContent = (v: unknown): Content => v as Content;

describe('tapButtons', () => {
  it("the virtual phone's tap targets number chips by index and card buttons by shown card", () => {
    const content = asContent({
      cardContents: [card({ cardActions: [actionOf('openUrl'), actionOf('dial')] }), card({ cardActions: [actionOf('postback')] })],
      cardActions: [actionOf('dial')],
      suggestions: [reply(), chipAction('shareLocation')],
    });
    expect(tapButtons('carousel', content).map((b) => b.target)).toEqual(['c:0:0', 'c:0:1', 'c:1:0', 's:0', 's:1']);
    expect(tapButtons('richCard', content).map((b) => b.target)).toEqual(['c:0:0', 's:0', 's:1']);
    expect(tapButtons('text', content).map((b) => b.target)).toEqual(['s:0', 's:1']);
  });

  it('a chip keeps its index when an earlier chip is unreadable, and a carousel card without buttons offers none', () => {
    const content = asContent({ cardContents: [card(), card({ cardActions: [actionOf('dial')] })], suggestions: [null, reply()] });
    expect(tapButtons('carousel', content)).toMatchObject([
      { placement: 'cardButton', target: 'c:1:0', card: 1, index: 0, action: { type: 'dial' } },
      { placement: 'chip', target: 's:1', index: 1, reply: { text: 'Yes' } },
    ]);
  });
});
