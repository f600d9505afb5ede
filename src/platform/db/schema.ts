/**
 * The database, as Kysely sees it: one interface per area in ./tables, joined here. Every table
 * is described in docs/storage.md; a new table is added to both.
 */
import type { AddressBookTables } from './tables/address-book.js';
import type { BillingTables } from './tables/billing.js';
import type { ConsentTables } from './tables/consent.js';
import type { EngagementTables } from './tables/engagement.js';
import type { FoundationTables } from './tables/foundation.js';
import type { IdempotencyTables } from './tables/idempotency.js';
import type { InstanceTables } from './tables/instances.js';
import type { MessagingTables } from './tables/messaging.js';
import type { PreviewTables } from './tables/previews.js';
import type { OAuthTables } from './tables/oauth.js';
import type { SandboxTables } from './tables/sandbox.js';
import type { SmppTables } from './tables/smpp.js';
import type { WebhooksFormsTables } from './tables/webhooks-forms.js';

export type Database = FoundationTables & SandboxTables & AddressBookTables & MessagingTables & PreviewTables & OAuthTables & EngagementTables & WebhooksFormsTables & SmppTables & IdempotencyTables & BillingTables & ConsentTables & InstanceTables;
