import { analyticsTools } from './analytics.js';
import { guideTools } from './guides.js';
import { jobsTools } from './jobs.js';
import { messagingTools } from './messaging.js';
import { smsTools } from './sms.js';
import { statusTools } from './status.js';
import type { ToolDef } from './types.js';

/** Every MCP tool, in the order tools/list shows them (spec §4.7). */
export const ALL_TOOLS: readonly ToolDef[] = [
  ...messagingTools,
  ...smsTools,
  ...statusTools,
  ...jobsTools,
  ...analyticsTools,
  ...guideTools,
] as unknown as readonly ToolDef[];
