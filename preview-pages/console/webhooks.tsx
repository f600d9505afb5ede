import { ConsoleFrame, Placeholder, type ConsoleUser } from './frame.js';

/** Until the webhooks area mounts its own page (ConsoleSources.webhooks). */
export function WebhooksPlaceholderPage({ user, accountName }: { user: ConsoleUser; accountName: string }) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="webhooks" title="Webhooks">
      <section class="card">
        <h1>Webhooks</h1>
        <Placeholder>Webhook endpoints (URL, events, signing secret) will be managed here.</Placeholder>
      </section>
    </ConsoleFrame>
  );
}
