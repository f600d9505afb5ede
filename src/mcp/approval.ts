import { CLIENT_CAPABILITIES_META_KEY, createRequestStateCodec, inputRequired, inputResponse, type InputRequiredResult, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import type { McpDeps } from './deps.js';
import type { ToolOutcome } from './tool-call.js';

/**
 * Approval inside the protocol (2026-07-28): a send refused with PREVIEW_NOT_APPROVED becomes an
 * `input_required` result carrying a URL-mode elicitation of the preview's share page, so the
 * client can open it for the person (with their consent) and retry the same call; the retry sends
 * once the person approved there. Approval itself never happens in the protocol: the elicitation
 * answer only tells us the client is done waiting, and the preview service decides again on every
 * round (a second send of a sent preview answers the first result).
 *
 * Only 2026-07-28 requests whose client declared URL elicitation get this; every other caller (2025
 * clients, 2026 clients without the capability) keeps the PREVIEW_NOT_APPROVED tool error with the
 * share URL in nextStep. Any tool refused with PREVIEW_NOT_APPROVED qualifies: the refusal is the
 * preview service's, not a list of tool names.
 */

/** What the state carries across rounds: which preview and call it was minted for, and the round. */
export interface ApprovalState {
  tool: string;
  previewId: string;
  round: number;
}

/** The elicitation key in inputRequests / inputResponses. */
export const APPROVAL_KEY = 'approval';
/** A client that answered this many rounds without the person approving gets the tool error. */
const MAX_ROUNDS = 3;

/** The HMAC codec for requestState, keyed from the sealing key so every instance of a fleet verifies it. */
export function approvalStateCodec(app: McpDeps): RequestStateCodec<ApprovalState> {
  return createRequestStateCodec<ApprovalState>({
    key: app.sealer.mac('mcp request state', 'v1'),
    ttlSeconds: 24 * 3600,
    // State minted for one account and tool is refused (-32602) when echoed on another.
    bind: (ctx) => `${ctx.mcpReq.method}\0${textOf((ctx.http?.authInfo?.extra as { accountId?: unknown } | undefined)?.accountId)}`,
  });
}

function declaresUrlElicitation(ctx: ServerContext): boolean {
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: { url?: unknown } } | undefined;
  return caps?.elicitation?.url !== undefined && caps.elicitation.url !== null;
}

/**
 * The input_required result to answer instead of `outcome`, 'declined' when the person declined to
 * open the page (the tool error then says so: asking them to approve again would be wrong), or null
 * to answer `outcome` as is.
 * `previewId` is the preview the call named (the send tools' preview_id argument).
 */
export async function approvalRound(codec: RequestStateCodec<ApprovalState>, era: 'legacy' | 'modern', ctx: ServerContext, tool: string, previewId: unknown, outcome: ToolOutcome): Promise<InputRequiredResult | 'declined' | null> {
  const err = outcome.error;
  if (era !== 'modern' || err?.code !== 'PREVIEW_NOT_APPROVED' || typeof previewId !== 'string') return null;
  const shareUrl = err.extra?.share_url;
  if (typeof shareUrl !== 'string' || !declaresUrlElicitation(ctx)) return null;
  const state = ctx.mcpReq.requestState<ApprovalState>();
  let round = 1;
  if (state && state.tool === tool && state.previewId === previewId) {
    // The person declined to open the page, or the client gave up: the tool error tells the assistant what to do.
    const answer = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_KEY);
    if (answer.kind === 'elicit' && answer.action === 'decline') return 'declined';
    if (answer.kind === 'elicit' && answer.action !== 'accept') return null;
    round = state.round + 1;
    if (round > MAX_ROUNDS) return null;
  }
  return inputRequired({
    inputRequests: {
      [APPROVAL_KEY]: inputRequired.elicitUrl({
        message: `Approval needed: the person must open this preview, log in and approve the message before ${tool} can send it. Nothing is sent until then.`,
        url: shareUrl,
      }),
    },
    requestState: await codec.mint({ tool, previewId, round }, ctx),
  });
}

/** A string value as is; anything else (absent, a number, an object) as the empty string. */
const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The next step after the person declined to open the approval page. */
export const DECLINED_NEXT_STEP =
  'The person declined to open the approval page, so nothing was sent. Do not call again on your own: ask the user whether to change the message (then preview it again) or to drop it.';
