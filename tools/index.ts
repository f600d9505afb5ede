import { analyticsTools } from './analytics.js';
import { conversationsTools } from './conversations.js';
import { contactsTools } from './contacts.js';
import { customFieldsTools } from './custom-fields.js';
import { groupsTools } from './groups.js';
import { guideTools } from './guides.js';
import { jobsTools } from './jobs.js';
import { messagingTools } from './messaging.js';
import { smsTools } from './sms.js';
import { statusTools } from './status.js';
import { templateGroupsTools } from './template-groups.js';
import { templatesTools } from './templates.js';
import type { ToolDef } from './types.js';

/** Every MCP tool, in the order tools/list shows them (spec §4.7). */
export const ALL_TOOLS: readonly ToolDef[] = [
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
  ...guideTools,
] as unknown as readonly ToolDef[];
