import type { Tx } from '../platform/db/database.js';
import type { PreviewApprovalsTable, PreviewsTable } from './tables.js';

/** A preview as other areas hear of it (webhook payloads): plain facts, times in epoch ms. */
export interface PreviewFacts {
  accountId: string;
  previewId: string;
  kind: PreviewsTable['kind'];
  status: PreviewsTable['status'];
  approvalRequired: boolean;
  /** The API key or OAuth app that made it; null for previews made before migration 031. */
  credential: { id: string; label: string } | null;
  recipients: number;
  creditsEstimated: number;
  campaignName: string | null;
  shareUrl: string;
  createdAt: number;
  expiresAt: number;
}

/**
 * What the previews area reports to others (the webhooks area listens): called inside the
 * transaction that made the change, so an outbox row commits with it or not at all. Listeners use
 * `tx` for every query.
 */
export interface PreviewEvents {
  /** A new preview was stored (not raised again when an identical sms_preview returns an open one). */
  created(tx: Tx, preview: PreviewFacts): Promise<void>;
  /** A person approved or rejected it on the share page; `record` is the audit row just written. */
  decided(tx: Tx, preview: PreviewFacts, record: PreviewApprovalsTable): Promise<void>;
  /** It expired while still waiting or approved (raised once, by the instance that noticed). */
  expired(tx: Tx, preview: PreviewFacts): Promise<void>;
}

export class PreviewEventHub implements PreviewEvents {
  private readonly listeners: Partial<PreviewEvents>[] = [];

  add(listener: Partial<PreviewEvents>): void {
    this.listeners.push(listener);
  }

  async created(tx: Tx, preview: PreviewFacts): Promise<void> {
    for (const l of this.listeners) await l.created?.(tx, preview);
  }

  async decided(tx: Tx, preview: PreviewFacts, record: PreviewApprovalsTable): Promise<void> {
    for (const l of this.listeners) await l.decided?.(tx, preview, record);
  }

  async expired(tx: Tx, preview: PreviewFacts): Promise<void> {
    for (const l of this.listeners) await l.expired?.(tx, preview);
  }
}
