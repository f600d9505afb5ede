/**
 * zod schemas of §2.1–2.5: the type source for the validator, REST/OpenAPI and the MCP tool
 * schemas. They describe shape only. Cross-field rules (exactly one of reply/action, the payload
 * matching the action type, placement, per-messageType requirements) live in validateContent,
 * because JSON Schema consumers cope badly with unions and refinements; the descriptions say
 * what is enforced there.
 */
import { z } from 'zod';
import { printable } from './characters.js';
import {
  ACTION_TEXT_MAX_LENGTH,
  CAPTION_MAX_LENGTH,
  CARD_ACTIONS_MAX,
  CAROUSEL_MAX_CARDS,
  CAROUSEL_MIN_CARDS,
  DESCRIPTION_MAX_LENGTH,
  POSTBACK_DATA_MAX_LENGTH,
  SMS_MAX_LENGTH,
  SUGGESTIONS_MAX,
  TEXT_BASIC_MAX_LENGTH,
  TEXT_MAX_LENGTH,
  TITLE_MAX_LENGTH,
  URL_MAX_LENGTH,
} from './limits.js';
import {
  ACTION_TYPES,
  CARD_ORIENTATIONS,
  IMAGE_ALIGNMENTS,
  MEDIA_CONTENT_TYPES,
  MEDIA_HEIGHTS,
  MESSAGE_TYPES,
  WEBVIEW_VIEW_MODES,
} from './vocabulary.js';

const httpsUrl = (what: string) =>
  z
    .url({ protocol: /^https$/ })
    .max(URL_MAX_LENGTH)
    .describe(`${what}. HTTPS, at most ${URL_MAX_LENGTH} characters; merge placeholders are not replaced here.`);

const buttonUrl = (what: string) =>
  printable(z.string())
    .min(1)
    .max(URL_MAX_LENGTH)
    .describe(`${what}. http(s) URL, at most ${URL_MAX_LENGTH} characters; may contain merge placeholders such as {{contact_first_name}}.`);

const dateTime = (what: string) => z.iso.datetime({ offset: true }).describe(`${what} (RFC 3339 date-time with Z or offset).`);

export const MessageTypeSchema = z.enum(MESSAGE_TYPES).describe('Kind of RCS message; decides which content fields are used.');
export const ActionTypeSchema = z.enum(ACTION_TYPES).describe('What the button or chip does when tapped.');
export const CardOrientationSchema = z.enum(CARD_ORIENTATIONS).describe('Card layout; default VERTICAL.');
export const ImageAlignmentSchema = z.enum(IMAGE_ALIGNMENTS).describe('Image side on HORIZONTAL cards; default RIGHT.');
export const MediaHeightSchema = z.enum(MEDIA_HEIGHTS).describe('Media height on a card; TALL is applied when omitted.');
export const MediaContentTypeSchema = z.enum(MEDIA_CONTENT_TYPES).describe('MIME type of the media file.');
export const WebviewViewModeSchema = z.enum(WEBVIEW_VIEW_MODES).describe('Webview size; default FULL.');

export const ContentInfoSchema = z
  .strictObject({
    fileUrl: httpsUrl('Direct URL of the media file').optional(),
    contentType: MediaContentTypeSchema.optional(),
    thumbnailUrl: httpsUrl('Image shown while the media loads').optional(),
    forceRefresh: z.boolean().optional().describe('Fetch the file again instead of using a cached copy; default false.'),
  })
  .describe('The media file. Without fileUrl, media on a rich card or carousel card is dropped with a warning.');

export const MediaSchema = z
  .strictObject({
    height: MediaHeightSchema.optional(),
    contentInfo: ContentInfoSchema.optional(),
    thumbnailUrl: httpsUrl('Placeholder image URL (also accepted beside contentInfo)').optional(),
  })
  .describe('Media of a card or media message (§2.2). Maximum media size 100 MB.');

const calendarFields = (what: string) => ({
  startTime: dateTime(`Start of the ${what}`),
  endTime: dateTime(`End of the ${what}; after startTime`),
  title: printable(z.string()).min(1).describe(`Title of the ${what}.`),
  description: printable(z.string()).optional().describe(`Description of the ${what}.`),
});

export const OpenUrlActionSchema = z
  .strictObject({ url: buttonUrl('URL to open') })
  .describe('Payload of openUrl and unsubscribeLink (for unsubscribeLink the url is exactly {{unsubscribe_link}}).');
export const OpenUrlInWebviewActionSchema = z
  .strictObject({
    url: buttonUrl('URL to open in the webview (HTTPS recommended)'),
    description: printable(z.string()).optional().describe('Accessibility description of the webview.'),
    viewMode: WebviewViewModeSchema.optional(),
  })
  .describe('Payload of openUrlInWebview.');
export const DialActionSchema = z
  .strictObject({ phoneNumber: printable(z.string()).min(1).describe('Number to call, E.164 recommended (+4915112345678).') })
  .describe('Payload of dial.');
export const CalendarActionSchema = z.strictObject(calendarFields('event')).describe('Payload of addToCalendar (card buttons only).');
export const CreateCalendarEventActionSchema = z
  .strictObject(calendarFields('event'))
  .describe('Payload of createCalendarEvent (chips only).');
export const LatLongSchema = z
  .strictObject({
    latitude: z.number().min(-90).max(90).describe('Degrees, -90 to 90.'),
    longitude: z.number().min(-180).max(180).describe('Degrees, -180 to 180.'),
  })
  .describe('A point on the map.');
export const ViewLocationActionSchema = z
  .strictObject({ latLong: LatLongSchema, label: printable(z.string()).optional().describe('Label of the pin.') })
  .describe('Payload of viewLocation.');
export const ShareLocationActionSchema = z.strictObject({}).describe('Payload of shareLocation: an empty object.');
export const UnsubscribeActionSchema = z
  .strictObject({
    stopKeyword: printable(z.string())
      .min(1)
      .optional()
      .describe("Keyword sent when tapped; default STOP; corrected at preview time to the sender's active trigger."),
  })
  .describe('Payload of unsubscribe (chips only).');

export const ActionSchema = z
  .strictObject({
    text: printable(z.string()).min(1).max(ACTION_TEXT_MAX_LENGTH).describe(`Label, at most ${ACTION_TEXT_MAX_LENGTH} characters.`),
    type: ActionTypeSchema,
    postbackData: printable(z.string())
      .max(POSTBACK_DATA_MAX_LENGTH)
      .optional()
      .describe(`Sent to the webhook on click, at most ${POSTBACK_DATA_MAX_LENGTH} characters.`),
    webhookUrl: z.url().max(URL_MAX_LENGTH).optional().describe('Webhook for this postback action instead of the account webhook.'),
    openUrlAction: OpenUrlActionSchema.optional(),
    openUrlInWebviewAction: OpenUrlInWebviewActionSchema.optional(),
    dialAction: DialActionSchema.optional(),
    calendarAction: CalendarActionSchema.optional(),
    createCalendarEventAction: CreateCalendarEventActionSchema.optional(),
    viewLocationAction: ViewLocationActionSchema.optional(),
    shareLocationAction: ShareLocationActionSchema.optional(),
    unsubscribeAction: UnsubscribeActionSchema.optional(),
  })
  .describe(
    'A card button or action chip (§2.3). Carry the payload object matching type. postback and addToCalendar: card buttons only; createCalendarEvent and unsubscribe: chips only.',
  );

export const SuggestedReplySchema = z
  .strictObject({
    text: printable(z.string()).min(1).max(ACTION_TEXT_MAX_LENGTH).describe(`Chip label and the reply sent, at most ${ACTION_TEXT_MAX_LENGTH} characters.`),
    postbackData: printable(z.string()).max(POSTBACK_DATA_MAX_LENGTH).optional().describe(`At most ${POSTBACK_DATA_MAX_LENGTH} characters.`),
    webhookUrl: z.url().max(URL_MAX_LENGTH).optional().describe('Webhook for this reply instead of the account webhook.'),
  })
  .describe('A reply chip.');

export const SuggestionSchema = z
  .strictObject({
    reply: SuggestedReplySchema.optional(),
    action: ActionSchema.optional(),
  })
  .describe('A chip (§2.4): exactly one of reply or action.');

const Title = printable(z.string()).max(TITLE_MAX_LENGTH).describe(`Card title, at most ${TITLE_MAX_LENGTH} characters; merge placeholders allowed.`);
const Description = printable(z.string())
  .max(DESCRIPTION_MAX_LENGTH)
  .describe(`Card description, at most ${DESCRIPTION_MAX_LENGTH} characters; merge placeholders allowed.`);
const CardActions = z.array(ActionSchema).max(CARD_ACTIONS_MAX).describe(`Card buttons, at most ${CARD_ACTIONS_MAX}.`);
const Suggestions = z.array(SuggestionSchema).max(SUGGESTIONS_MAX).describe(`Chips, at most ${SUGGESTIONS_MAX} in total.`);
const Text = printable(z.string()).max(TEXT_MAX_LENGTH).describe(`Message text, at most ${TEXT_MAX_LENGTH} characters; merge placeholders allowed.`);
const Url = httpsUrl('Direct media URL');
const Caption = printable(z.string()).max(CAPTION_MAX_LENGTH).describe(`Caption, at most ${CAPTION_MAX_LENGTH} characters; with a caption media is sent as a rich card.`);

export const CardContentSchema = z
  .strictObject({
    title: Title.optional(),
    description: Description.optional(),
    media: MediaSchema.optional(),
    cardActions: CardActions.optional(),
  })
  .describe('One carousel card: title or description required.');

/**
 * The content object as accepted on input: one object, every field optional. Which fields are
 * required or used depends on messageType and is checked by validateContent.
 */
export const ContentSchema = z
  .strictObject({
    text: Text.optional(),
    url: Url.optional(),
    caption: Caption.optional(),
    title: Title.optional(),
    description: Description.optional(),
    cardOrientation: CardOrientationSchema.optional(),
    imageAlignment: ImageAlignmentSchema.optional(),
    media: MediaSchema.optional(),
    cardActions: CardActions.optional(),
    cardContents: z
      .array(CardContentSchema)
      .min(CAROUSEL_MIN_CARDS)
      .max(CAROUSEL_MAX_CARDS)
      .optional()
      .describe(`Carousel cards, ${CAROUSEL_MIN_CARDS} to ${CAROUSEL_MAX_CARDS}.`),
    suggestions: Suggestions.optional(),
  })
  .describe(
    'Message content (§2.1). text/textBasic: text; richCard: title or description, media, cardActions; carousel: cardContents; media/file/image/video/audio: url or media. Suggestions on all but textBasic.',
  );

// One schema per messageType, for documentation and typed construction.
export const TextContentSchema = z
  .strictObject({ text: Text.min(1), suggestions: Suggestions.optional() })
  .describe('Content of a text message.');
export const TextBasicContentSchema = z
  .strictObject({
    text: printable(z.string()).min(1).max(TEXT_BASIC_MAX_LENGTH).describe(`At most ${TEXT_BASIC_MAX_LENGTH} characters, no suggestions.`),
  })
  .describe('Content of a textBasic message.');
export const RichCardContentSchema = z
  .strictObject({
    title: Title.optional(),
    description: Description.optional(),
    media: MediaSchema.optional(),
    cardActions: CardActions.optional(),
    suggestions: Suggestions.optional(),
    cardOrientation: CardOrientationSchema.optional(),
    imageAlignment: ImageAlignmentSchema.optional(),
  })
  .describe('Content of a rich card: title or description required.');
export const CarouselContentSchema = z
  .strictObject({
    cardContents: z.array(CardContentSchema).min(CAROUSEL_MIN_CARDS).max(CAROUSEL_MAX_CARDS),
    suggestions: Suggestions.optional(),
  })
  .describe('Content of a carousel.');
export const MediaMessageContentSchema = z
  .strictObject({ url: Url.optional(), caption: Caption.optional(), media: MediaSchema.optional(), suggestions: Suggestions.optional() })
  .describe('Content of a media message: url (plus optional caption) or media.');
export const FileContentSchema = z
  .strictObject({ url: Url.optional(), media: MediaSchema.optional() })
  .describe('Content of a file message: url or media with a file URL.');
export const ImageContentSchema = z
  .strictObject({ url: Url.optional(), media: MediaSchema.optional(), caption: Caption.optional() })
  .describe('Content of an image message: url or media; optional caption.');
export const VideoContentSchema = z
  .strictObject({ url: Url.optional(), media: MediaSchema.optional(), caption: Caption.optional() })
  .describe('Content of a video message: url or media; optional caption.');
export const AudioContentSchema = z
  .strictObject({ url: Url.optional(), media: MediaSchema.optional() })
  .describe('Content of an audio message: url or media.');

export const CONTENT_SCHEMAS = {
  text: TextContentSchema,
  textBasic: TextBasicContentSchema,
  richCard: RichCardContentSchema,
  carousel: CarouselContentSchema,
  media: MediaMessageContentSchema,
  file: FileContentSchema,
  image: ImageContentSchema,
  video: VideoContentSchema,
  audio: AudioContentSchema,
} as const;

export const SmsFallbackSchema = z
  .strictObject({
    message: printable(z.string())
      .min(1)
      .max(SMS_MAX_LENGTH)
      .describe(`SMS text for devices without RCS, at most ${SMS_MAX_LENGTH} characters; same merge fields as the RCS body.`),
    sendernameId: printable(z.string()).min(1).describe('ID of an approved SMS sender.'),
  })
  .describe('SMS sent instead when the recipient cannot receive RCS (§2.5).');

export type Content = z.infer<typeof ContentSchema>;
export type CardContent = z.infer<typeof CardContentSchema>;
export type Media = z.infer<typeof MediaSchema>;
export type ContentInfo = z.infer<typeof ContentInfoSchema>;
export type Action = z.infer<typeof ActionSchema>;
export type SuggestedReply = z.infer<typeof SuggestedReplySchema>;
export type Suggestion = z.infer<typeof SuggestionSchema>;
export type SmsFallback = z.infer<typeof SmsFallbackSchema>;
export type OpenUrlAction = z.infer<typeof OpenUrlActionSchema>;
export type OpenUrlInWebviewAction = z.infer<typeof OpenUrlInWebviewActionSchema>;
export type DialAction = z.infer<typeof DialActionSchema>;
export type CalendarAction = z.infer<typeof CalendarActionSchema>;
export type CreateCalendarEventAction = z.infer<typeof CreateCalendarEventActionSchema>;
export type ViewLocationAction = z.infer<typeof ViewLocationActionSchema>;
export type UnsubscribeAction = z.infer<typeof UnsubscribeActionSchema>;
export type TextContent = z.infer<typeof TextContentSchema>;
export type TextBasicContent = z.infer<typeof TextBasicContentSchema>;
export type RichCardContent = z.infer<typeof RichCardContentSchema>;
export type CarouselContent = z.infer<typeof CarouselContentSchema>;
export type MediaMessageContent = z.infer<typeof MediaMessageContentSchema>;
export type FileContent = z.infer<typeof FileContentSchema>;
export type ImageContent = z.infer<typeof ImageContentSchema>;
export type VideoContent = z.infer<typeof VideoContentSchema>;
export type AudioContent = z.infer<typeof AudioContentSchema>;
