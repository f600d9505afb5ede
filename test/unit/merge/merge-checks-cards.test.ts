import { describe, expect, it } from 'vitest';
import { mergeContent } from '../../../src/content/merge-content.js';
import type { Content } from '../../../src/content/schemas.js';
import type { MergeContext } from '../../../src/merge/merge-text.js';
import { checkMergedMessage, rcsMergePlan } from '../../../src/messaging/merge-checks.js';

const ctx = (firstName: string | null): MergeContext => ({
  contact: { firstName, lastName: null, phone: '+4915100000001', email: null, customFields: {} },
  company: {},
  today: '1 May 2026',
  unsubscribeUrl: 'https://u.example/u/t',
  customFieldTags: new Set(),
});

/** The card rule after merging: a title and description that merge to nothing leave a card with neither. */
function problems(messageType: 'richCard' | 'carousel', content: Content, firstName: string | null) {
  const plan = rcsMergePlan(messageType, content, null);
  return checkMergedMessage(plan, mergeContent(content, ctx(firstName)), null).filter((p) => p.code === 'title_or_description_required');
}

describe('merged cards keep a title or a description', () => {
  it('the rich card itself, named by path content', () => {
    const content: Content = { title: '{{contact_first_name}}', suggestions: [{ reply: { text: 'Hi', postbackData: 'hi' } }] };
    expect(problems('richCard', content, 'Ann')).toEqual([]);
    expect(problems('richCard', content, null)).toEqual([
      { path: 'content', code: 'title_or_description_required', message: 'Title and description are both empty after merge fields are filled in.' },
    ]);
    expect(problems('richCard', { ...content, description: 'Always here' }, null)).toEqual([]);
  });

  it('each carousel card by its own path, once even when both its title and description are merged', () => {
    const content: Content = {
      cardContents: [
        { title: 'Fixed' },
        { title: '{{contact_first_name}}', description: ' {{contact_first_name}} ' },
        { description: '{{contact_first_name}}' },
      ],
    };
    expect(problems('carousel', content, 'Ann')).toEqual([]);
    expect(problems('carousel', content, null).map((p) => p.path)).toEqual(['content.cardContents[1]', 'content.cardContents[2]']);
  });
});
