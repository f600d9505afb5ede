/** Limits of sending (spec §4.1) and of the message log (§4.5–4.6): the send schemas, the log and the tools' guides read them here. */
export const CAMPAIGN_NAME_MAX_LENGTH = 100;
export const BATCH_MAX_RECIPIENTS = 10_000;
export const BATCH_SIZE_MIN = 1;
export const BATCH_SIZE_MAX = 1000;
export const BATCH_SIZE_DEFAULT = 100;
export const BATCH_DELAY_MS_MIN = 0;
export const BATCH_DELAY_MS_MAX = 10_000;
export const BATCH_DELAY_MS_DEFAULT = 50;
export const MESSAGE_LOG_LIMIT_MIN = 1;
export const MESSAGE_LOG_LIMIT_MAX = 500;
export const MESSAGE_LOG_MAX_RANGE_DAYS = 31;
