/**
 * The overview's data from other areas, plugged in where src/app.ts calls consoleRoutes(deps, sources, pages)
 * (their pages are in `pages`); a missing source shows a placeholder, an empty list says so. Items are plain display
 * data: ids, short texts, ISO times.
 */
export interface PendingPreviewItem {
  id: string;
  channel: 'RCS' | 'SMS';
  /** A short description (campaign name, first words of the text). Rendered escaped. */
  summary: string;
  recipients: number;
  /** The share page where a logged-in person approves or rejects. */
  shareUrl: string;
  createdAt: string;
  expiresAt: string;
}

export interface RecentMessageItem {
  id: string;
  channel: 'RCS' | 'SMS';
  to: string;
  status: string;
  senderName?: string | undefined;
  createdAt: string;
  /** E-mail of the person who approved the preview it was sent from (null: sent without a person's approval). */
  approvedBy?: string | null;
  approvedAt?: string | null;
}

export interface BatchJobItem {
  id: string;
  campaignName?: string | undefined;
  status: string;
  total: number;
  processed: number;
  failed: number;
  createdAt: string;
}

export interface ConsoleSources {
  /** Previews awaiting approval (the MCP / previews area). */
  pendingPreviews?: (accountId: string) => Promise<PendingPreviewItem[]>;
  /** The latest messages, newest first (the messaging area). */
  recentMessages?: (accountId: string) => Promise<RecentMessageItem[]>;
  /** Batch and scheduled jobs with progress, newest first (the messaging area). */
  batchJobs?: (accountId: string) => Promise<BatchJobItem[]>;
  /** How many previews wait for a person: the count beside the Approvals tab on every console page. */
  approvalsWaiting?: (accountId: string) => Promise<number>;
}
