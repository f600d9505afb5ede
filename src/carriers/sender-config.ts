import { z } from 'zod';
import type { Db } from '../platform/db/database.js';

/**
 * Per-sender carrier overrides (`senders.carrier_config`, JSON): several RBM agents or several
 * SMSCs behind one server. Without an override a sender uses the configured default (RBM_*,
 * SMPP_URL). An override only applies to the adapter it names, and only while that adapter is the
 * configured one for the sender's channel (CARRIER_RCS=rbm, CARRIER_SMS=smpp).
 */
export const SenderCarrierConfigSchema = z.strictObject({
  rbm: z
    .strictObject({
      agentId: z.string().min(1).max(200),
      /** Service account of another partner; default RBM_SERVICE_ACCOUNT_FILE. */
      serviceAccountFile: z.string().min(1).optional(),
      /** Webhook client token of that agent's webhook; default RBM_WEBHOOK_CLIENT_TOKEN. */
      clientToken: z.string().min(8).optional(),
    })
    .optional(),
  smpp: z
    .strictObject({
      /** smpp://system_id:password@host:port (ssmpp:// for TLS). */
      url: z.url({ protocol: /^s?smpp$/ }).refine((u) => {
        const parsed = new URL(u);
        return parsed.username !== '' && parsed.port !== '';
      }, 'must look like smpp://system_id:password@host:port'),
    })
    .optional(),
});
export type SenderCarrierConfig = z.infer<typeof SenderCarrierConfigSchema>;

/** The stored override; a broken value counts as none (it was validated when written). */
export function parseCarrierConfig(raw: string | null): SenderCarrierConfig {
  if (!raw) return {};
  try {
    const parsed = SenderCarrierConfigSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export interface SenderEntry {
  id: string;
  accountId: string;
  name: string;
  type: 'RCS' | 'SMS';
  status: string;
  isDefault: boolean;
  createdAt: number;
  config: SenderCarrierConfig;
}

/**
 * Senders as the carrier adapters see them: which override applies when sending, and which of our
 * senders an incoming message or receipt belongs to. Read from the database with a short cache, so
 * an override set with the CLI reaches a running server within a few seconds.
 */
export class SenderDirectory {
  private cache: { at: number; list: SenderEntry[] } | null = null;
  private loading: Promise<SenderEntry[]> | null = null;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 5_000,
  ) {}

  async all(): Promise<SenderEntry[]> {
    const t = this.now();
    if (this.cache && t - this.cache.at < this.ttlMs) return this.cache.list;
    this.loading ??= this.load().finally(() => (this.loading = null));
    const list = await this.loading;
    this.cache = { at: t, list };
    return list;
  }

  async get(id: string): Promise<SenderEntry | undefined> {
    const hit = (await this.all()).find((s) => s.id === id);
    if (hit) return hit;
    // Created after the cache was filled: look once more without it.
    this.cache = null;
    return (await this.all()).find((s) => s.id === id);
  }

  invalidate(): void {
    this.cache = null;
  }

  private async load(): Promise<SenderEntry[]> {
    const rows = await this.db.selectFrom('senders').select(['id', 'account_id', 'name', 'type', 'status', 'is_default', 'created_at', 'carrier_config']).orderBy('created_at').execute();
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      name: r.name,
      type: r.type,
      status: r.status,
      isDefault: r.is_default === 1,
      createdAt: r.created_at,
      config: parseCarrierConfig(r.carrier_config),
    }));
  }

  /**
   * Which of `candidates` a person at `phoneDigits` is talking to: the sender of our latest
   * outbound message to that number, else the approved default sender, else the oldest approved
   * one, else the oldest. Null without candidates.
   */
  async attribute(candidates: readonly SenderEntry[], phoneDigits: string): Promise<SenderEntry | null> {
    if (candidates.length === 0) return null;
    if (candidates.length > 1) {
      const ids = candidates.map((c) => c.id);
      const latest = await this.db
        .selectFrom('messages')
        .select('sendername_id')
        // The accounts too: the number alone starts no index, and the look-up read the whole table.
        .where('account_id', 'in', [...new Set(candidates.map((c) => c.accountId))].slice(0, 500))
        .where('phone', '=', phoneDigits)
        .where('direction', '=', 'OUTBOUND')
        .where('sendername_id', 'in', ids.slice(0, 500))
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (latest) return candidates.find((c) => c.id === latest.sendername_id) ?? null;
    }
    const approved = candidates.filter((c) => c.status === 'APPROVED');
    return approved.find((c) => c.isDefault) ?? approved[0] ?? candidates[0]!;
  }
}
