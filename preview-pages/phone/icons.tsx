import type { ActionType } from '../../src/content/index.js';

/** Icon names: one per action type, plus reply chips and media tiles. */
export type IconName = ActionType | 'reply' | 'file' | 'audio' | 'play' | 'back' | 'verified';

// 24×24 stroke icons drawn for this project. Presentation attributes only: the CSP forbids style.
const PATHS: Readonly<Record<IconName, readonly string[]>> = {
  reply: ['M4 5h16v11H8l-4 4z'],
  postback: ['M9 14l-4-4 4-4', 'M5 10h10a5 5 0 0 1 0 10h-2'],
  openUrl: ['M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z', 'M3 12h18', 'M12 3c3 3.5 3 14.5 0 18c-3-3.5-3-14.5 0-18z'],
  openUrlInWebview: ['M4 4h16a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1z', 'M3 9h18', 'M6.5 6.5h.01', 'M9.5 6.5h.01'],
  dial: ['M5 4h4l2 5-2.5 1.5a11 11 0 0 0 5 5L15 13l5 2v4a2 2 0 0 1-2 2A16 16 0 0 1 3 6a2 2 0 0 1 2-2z'],
  addToCalendar: ['M4 5h16a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z', 'M16 3v4', 'M8 3v4', 'M3 10h18'],
  createCalendarEvent: ['M4 5h16a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z', 'M16 3v4', 'M8 3v4', 'M3 10h18', 'M12 13v5', 'M9.5 15.5h5'],
  viewLocation: ['M12 21s-6.5-5.8-6.5-11a6.5 6.5 0 0 1 13 0c0 5.2-6.5 11-6.5 11z', 'M12 8a2 2 0 1 0 0 4a2 2 0 1 0 0-4z'],
  shareLocation: ['M12 5a7 7 0 1 0 0 14a7 7 0 1 0 0-14z', 'M12 2v3', 'M12 19v3', 'M2 12h3', 'M19 12h3', 'M12 10a2 2 0 1 0 0 4a2 2 0 1 0 0-4z'],
  unsubscribeLink: ['M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z', 'M5.6 5.6l12.8 12.8'],
  unsubscribe: ['M8 3h8l5 5v8l-5 5H8l-5-5V8z', 'M8.5 12h7'],
  file: ['M6 3h8l4 4v14H6z', 'M14 3v4h4', 'M9 12h6', 'M9 16h6'],
  audio: ['M9 18V5l11-2v13', 'M6 15a3 3 0 1 0 0 6a3 3 0 1 0 0-6z', 'M17 13a3 3 0 1 0 0 6a3 3 0 1 0 0-6z'],
  play: ['M8 5v14l11-7z'],
  back: ['M15 5l-7 7 7 7'],
  verified: ['M12 3l2.4 1.8 3-.2.9 2.9 2.4 1.8-1 2.8 1 2.8-2.4 1.8-.9 2.9-3-.2L12 21l-2.4-1.8-3 .2-.9-2.9-2.4-1.8 1-2.8-1-2.8 2.4-1.8.9-2.9 3 .2z', 'M8.5 12l2.5 2.5 4.5-5'],
};

export function Icon({ name, class: className }: { name: IconName; class?: string }) {
  return (
    <svg
      class={`icon${className ? ` ${className}` : ''}`}
      viewBox="0 0 24 24"
      width="16"
      height="16"
      fill={name === 'play' ? 'currentColor' : 'none'}
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {PATHS[name].map((d) => (
        <path d={d} />
      ))}
    </svg>
  );
}
