import { analyticsTools } from './analytics.js';
import { conversationsTools } from './conversations.js';
import { contactsTools } from './contacts.js';
import { customFieldsTools } from './custom-fields.js';
import { groupsTools } from './groups.js';
import { jobsTools } from './jobs.js';
import { messagingTools } from './messaging.js';
import { smsTools } from './sms.js';
import { statusTools } from './status.js';
import { templateGroupsTools } from './template-groups.js';
import { templatesTools } from './templates.js';
import type { ToolDef } from './types.js';

/** The tools that act on the account, in the order tools/list shows them (spec §4.7); the guides describing them follow. */
export const DOMAIN_TOOLS: readonly ToolDef[] = [
  ...messagingTools,
  ...smsTools,
  ...statusTools,
  ...conversationsTools,
  ...jobsTools,
  ...analyticsTools,
  ...contactsTools,
  ...groupsTools,
  ...customFieldsTools,
  ...templatesTools,
  ...templateGroupsTools,
];
