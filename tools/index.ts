import { DOMAIN_TOOLS } from './domain.js';
import { guideTools } from './guides.js';
import type { ToolDef } from './types.js';

/** Every MCP tool, in the order tools/list shows them (spec §4.7). */
export const ALL_TOOLS: readonly ToolDef[] = [...DOMAIN_TOOLS, ...guideTools];
