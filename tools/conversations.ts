import { z } from 'zod';
import { ConversationStatusQuerySchema, ConversationStatusResponseSchema } from '../src/conversations/schemas.js';
import { READ, defineTool } from './types.js';

export const rcsConversationStatus = defineTool({
  name: 'rcs_conversation_status',
  title: 'Conversation window of a number',
  description:
    'Whether a 24-hour conversation window is open for a number and until when; with conversation billing, messages inside it are free.',
  toolset: 'conversations',
  permissions: ['messages:read'],
  input: z.strictObject(ConversationStatusQuerySchema.shape),
  output: ConversationStatusResponseSchema,
  annotations: READ,
  uses: ['conversations'],
  run: ({ conversations, principal }, input) => conversations.status(principal.accountId, input.phoneNumber, input.sendernameId ? { sendernameId: input.sendernameId } : {}),
});

export const conversationsTools = [rcsConversationStatus];
