/** Limits of templates and their groups (spec §4.5). */
export const TEMPLATE_GROUP_NAME_MAX_LENGTH = 100;
