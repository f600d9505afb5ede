/**
 * Every numeric limit of spec §8, named once. Where §8 quotes two numbers the field definitions
 * win (text 3072, card actions 4, chips 11). GET /status, the button guidelines, the zod schemas
 * and the validator are all derived from these constants, so a change here changes all of them.
 */
import {
  ACTION_PAYLOAD_FIELD,
  ACTION_REQUIRED_FIELDS,
  ACTION_TYPES,
  CARD_BUTTON_ONLY_ACTION_TYPES,
  CHIP_ONLY_ACTION_TYPES,
  MEDIA_CONTENT_TYPES,
  actionAllowedOn,
  type ActionPayloadField,
  type ActionType,
  type MediaContentType,
} from './vocabulary.js';

export {
  SMS_MAX_LENGTH,
  SMS_MAX_SEGMENTS,
  GSM7_SINGLE_SEGMENT_UNITS,
  GSM7_MULTI_SEGMENT_UNITS,
  UCS2_SINGLE_SEGMENT_UNITS,
  UCS2_MULTI_SEGMENT_UNITS,
} from '../sms/limits.js';
export { PHONE_MIN_DIGITS, PHONE_MAX_DIGITS } from '../phone/limits.js';

// Message content (§2.1–2.4). Lengths are UTF-16 code units (JavaScript string length).
export const TEXT_MAX_LENGTH = 3072;
export const TEXT_BASIC_MAX_LENGTH = 160;
export const TITLE_MAX_LENGTH = 200;
export const DESCRIPTION_MAX_LENGTH = 2000;
export const CAPTION_MAX_LENGTH = 2000;
export const CARD_ACTIONS_MAX = 4;
export const SUGGESTIONS_MAX = 11;
export const ACTION_TEXT_MAX_LENGTH = 25;
export const POSTBACK_DATA_MAX_LENGTH = 2048;
export const CAROUSEL_MIN_CARDS = 2;
export const CAROUSEL_MAX_CARDS = 10;
export const URL_MAX_LENGTH = 2000;
export const MEDIA_MAX_FILE_SIZE_BYTES = 104_857_600;

// Limits of what content is not (batches, the log, templates, the sandbox, contacts, groups) live with their areas:
// src/messaging/limits.ts, src/templates/limits.ts, src/sandbox/limits.ts, src/contacts/limits.ts, src/groups/limits.ts.

/** The `validationLimits` object of GET /status (§4.1), exactly that shape. */
export interface ValidationLimits {
  cardActions: { maxPerCard: number; textMaxLength: number };
  chipSuggestions: { total: number; textMaxLength: number };
  postbackData: { maxLength: number };
  text: { maxLength: number };
  richCard: { titleMaxLength: number; descriptionMaxLength: number };
  carousel: { minCards: number; maxCards: number };
  media: { maxFileSizeBytes: number; supportedFormats: MediaContentType[] };
}

export function validationLimits(): ValidationLimits {
  return {
    cardActions: { maxPerCard: CARD_ACTIONS_MAX, textMaxLength: ACTION_TEXT_MAX_LENGTH },
    chipSuggestions: { total: SUGGESTIONS_MAX, textMaxLength: ACTION_TEXT_MAX_LENGTH },
    postbackData: { maxLength: POSTBACK_DATA_MAX_LENGTH },
    text: { maxLength: TEXT_MAX_LENGTH },
    richCard: { titleMaxLength: TITLE_MAX_LENGTH, descriptionMaxLength: DESCRIPTION_MAX_LENGTH },
    carousel: { minCards: CAROUSEL_MIN_CARDS, maxCards: CAROUSEL_MAX_CARDS },
    media: { maxFileSizeBytes: MEDIA_MAX_FILE_SIZE_BYTES, supportedFormats: [...MEDIA_CONTENT_TYPES] },
  };
}

export interface ActionTypeGuideline {
  type: ActionType;
  onChip: boolean;
  onCardButton: boolean;
  /** The payload object this type carries, or null when it needs none. */
  payloadField: ActionPayloadField | null;
  /** Dotted paths inside the action that must be present. */
  requiredFields: string[];
  description: string;
}

export interface ButtonGuidelines {
  limits: {
    cardActionsPerCard: number;
    chipSuggestionsTotal: number;
    textMaxLength: number;
    postbackDataMaxLength: number;
    urlMaxLength: number;
  };
  placement: {
    chipOnly: ActionType[];
    cardButtonOnly: ActionType[];
    both: ActionType[];
  };
  actionTypes: ActionTypeGuideline[];
  rules: string[];
}

const ACTION_DESCRIPTIONS: Readonly<Record<ActionType, string>> = {
  postback: 'Sends postbackData to your webhook when tapped (card buttons; on chips use a reply).',
  openUrl: 'Opens openUrlAction.url in the browser. Merge placeholders are allowed in the URL.',
  openUrlInWebview: 'Opens openUrlInWebviewAction.url inside the messaging app (viewMode FULL, TALL or HALF; default FULL).',
  dial: 'Starts a call to dialAction.phoneNumber (E.164, e.g. +4915112345678).',
  addToCalendar: 'Adds calendarAction (startTime, endTime, title, description) to the calendar (card buttons only).',
  createCalendarEvent: 'Creates the event in createCalendarEventAction (startTime, endTime, title, description) (chips only).',
  viewLocation: 'Shows viewLocationAction.latLong (latitude, longitude) with an optional label on a map.',
  shareLocation: 'Asks the recipient to share their location; shareLocationAction is an empty object.',
  unsubscribeLink: 'Opens the per-recipient opt-out page; openUrlAction.url must be exactly {{unsubscribe_link}}.',
  unsubscribe: 'Sends the stop keyword (unsubscribeAction.stopKeyword, default STOP, corrected to the sender\'s trigger at preview time) (chips only).',
};

export function buttonGuidelines(): ButtonGuidelines {
  const actionTypes = ACTION_TYPES.map((type) => ({
    type,
    onChip: actionAllowedOn(type, 'chip'),
    onCardButton: actionAllowedOn(type, 'cardButton'),
    payloadField: ACTION_PAYLOAD_FIELD[type],
    requiredFields: ['text', 'type', ...ACTION_REQUIRED_FIELDS[type]],
    description: ACTION_DESCRIPTIONS[type],
  }));
  return {
    limits: {
      cardActionsPerCard: CARD_ACTIONS_MAX,
      chipSuggestionsTotal: SUGGESTIONS_MAX,
      textMaxLength: ACTION_TEXT_MAX_LENGTH,
      postbackDataMaxLength: POSTBACK_DATA_MAX_LENGTH,
      urlMaxLength: URL_MAX_LENGTH,
    },
    placement: {
      chipOnly: [...CHIP_ONLY_ACTION_TYPES],
      cardButtonOnly: [...CARD_BUTTON_ONLY_ACTION_TYPES],
      both: actionTypes.filter((a) => a.onChip && a.onCardButton).map((a) => a.type),
    },
    actionTypes,
    rules: [
      `At most ${CARD_ACTIONS_MAX} card buttons (cardActions) per card.`,
      `At most ${SUGGESTIONS_MAX} chips (suggestions) per message, any mix of reply and action chips.`,
      `Button and chip text: required, at most ${ACTION_TEXT_MAX_LENGTH} characters.`,
      `postbackData: at most ${POSTBACK_DATA_MAX_LENGTH} characters.`,
      `A chip has exactly one of reply or action.`,
      `${CARD_BUTTON_ONLY_ACTION_TYPES.join(' and ')} are card buttons only; on chips use a reply with postbackData (or createCalendarEvent).`,
      `${CHIP_ONLY_ACTION_TYPES.join(' and ')} are chips only.`,
      'Each action type carries its own payload object (openUrl → openUrlAction.url, dial → dialAction.phoneNumber, …).',
      'An unsubscribe link uses type unsubscribeLink with openUrlAction.url exactly {{unsubscribe_link}}, never openUrl.',
      `URLs: at most ${URL_MAX_LENGTH} characters; button URLs may contain merge placeholders.`,
    ],
  };
}
