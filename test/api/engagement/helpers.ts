import type { SimulatedNetwork } from '../../../src/carriers/simulated/network.js';
import type { Clock } from '../../../src/platform/clock.js';
import { startTestServer, type TestAccount, type TestServer } from '../../helpers/server.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** RCS price of a German number in the default price list (credits). */
export const DE_RCS = 0.035;

/** Valid German mobile numbers that are ordinary RCS-capable simulated numbers. */
export const num = (i: number): string => `+49151${String(20_000_000 + i * 10).padStart(8, '0')}`;

export interface EngagementServer extends TestServer {
  /** An approved RCS sender with conversation billing, on `account`. */
  convSender: string;
  network: SimulatedNetwork;
  /** Sends one text through a sender (default the conversation-billing one), answers the body. */
  send(to: string, opts?: { sender?: string; key?: string; extra?: Record<string, unknown> }): Promise<{ status: number; body: any; headers: Headers }>;
  /** The person at `from` writes to a sender; waits until it is recorded. */
  reply(from: string, senderId: string, text: string, channel?: 'RCS' | 'SMS'): Promise<void>;
  /** The log record of a message. */
  record(messageId: string, key?: string): Promise<any>;
  /** A conversation-billing sender for another account. */
  convSenderFor(account: TestAccount, opts?: { stopKeyword?: string }): Promise<string>;
}

export async function startEngagementServer(opts: { clock?: Clock; env?: Record<string, string> } = {}): Promise<EngagementServer> {
  const t = await startTestServer(opts);
  const convSenderFor = async (account: TestAccount, o: { stopKeyword?: string } = {}) =>
    (await t.ctx.services.senders.create(account.accountId, { name: `Conv Agent ${account.accountId.slice(-4)}`, type: 'RCS', status: 'APPROVED', supportsConversationBilling: true, ...(o.stopKeyword ? { stopKeyword: o.stopKeyword } : {}) })).id;
  const convSender = await convSenderFor(t.account);
  const network = t.ctx.carriers as SimulatedNetwork;
  return Object.assign(t, {
    convSender,
    network,
    convSenderFor,
    async send(to: string, o: { sender?: string; key?: string; extra?: Record<string, unknown> } = {}) {
      return t.api('POST', '/api/rcs/send', { phoneNumber: to, messageType: 'text', content: { text: 'Hello' }, sendernameId: o.sender ?? convSender, ...(o.extra ?? {}) }, o.key ? { key: o.key } : {});
    },
    async reply(from: string, senderId: string, text: string, channel: 'RCS' | 'SMS' = 'RCS') {
      await network.userReply({ from, senderId, channel, text });
    },
    async record(messageId: string, key?: string) {
      const r = await t.api('GET', `/api/messages/log?messageId=${messageId}`, undefined, key ? { key } : {});
      return r.body.messages[0];
    },
  });
}
