import type { AttemptReport, Delivery, Webhook, WebhookSecret, WebhookWithSecret } from './schemas.js';
import { ErrorNote, PostForm } from '../../preview-pages/layout.js';
import { ConsoleFrame, type ConsoleUser } from '../../preview-pages/console/frame.js';
import { formatTime } from '../../preview-pages/console/format.js';

export interface EventChoice {
  value: string;
  description: string;
}

function HealthBadge({ w }: { w: Webhook }) {
  if (!w.enabled) return <span class="badge">disabled</span>;
  return w.health.status === 'failing' ? <span class="badge status-rejected">failing</span> : <span class="badge status-approved">healthy</span>;
}

function SecretBox({ title, secret, note }: { title: string; secret: WebhookSecret | { secret: string; previousSecret?: null; previousSecretExpiresAt?: null }; note: string }) {
  return (
    <section class="card created-key" aria-live="polite">
      <h2>{title}</h2>
      <p>
        <code class="secret" data-testid="webhook-secret">
          {secret.secret}
        </code>
      </p>
      {secret.previousSecret ? (
        <p class="small">
          The previous secret keeps signing beside it until {secret.previousSecretExpiresAt}: <code class="secret">{secret.previousSecret}</code>
        </p>
      ) : null}
      <p class="muted small">{note}</p>
    </section>
  );
}

function EventChecks({ events, chosen }: { events: readonly EventChoice[]; chosen: readonly string[] }) {
  return (
    <fieldset class="scopes">
      <legend>Events</legend>
      <div class="check-grid">
        {events.map((e) => (
          <label class="check">
            <input type="checkbox" name="events" value={e.value} checked={chosen.includes(e.value)} />
            <span>
              <code>{e.value}</code> {e.description}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export interface WebhooksPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  webhooks: Webhook[];
  events: readonly EventChoice[];
  created?: WebhookWithSecret | undefined;
  error?: string | undefined;
  form?: { url: string; description: string; events: string[] } | undefined;
  notice?: string | undefined;
}

export function WebhooksPage({ user, accountName, timezone, webhooks, events, created, error, form, notice }: WebhooksPageProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="webhooks" title="Webhooks" notice={notice}>
      {created ? (
        <SecretBox
          title={`Webhook created for ${created.url}`}
          secret={{ secret: created.secret }}
          note="Verify the X-RCS-Signature header of every request with this secret (see docs/webhooks.md). You can reveal it again on the webhook's page."
        />
      ) : null}
      <section class="card">
        <h1>Webhooks</h1>
        <p class="muted small">
          Events are posted as signed JSON (<code>X-RCS-Signature: t=…,v1=…</code>), retried with backoff for at least 24 hours until your endpoint answers 2xx.
        </p>
        {webhooks.length === 0 ? (
          <p class="muted">No webhooks yet.</p>
        ) : (
          <div class="wide-table" tabindex={0} role="region" aria-label="Webhook endpoints">
            <table class="stack-table webhooks">
            <thead>
              <tr>
                <th>URL</th>
                <th>Events</th>
                <th>State</th>
                <th>Last success</th>
                <th>Queued</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((w) => (
                <tr data-webhook-id={w.id}>
                  <td class="url-cell" data-label="URL">
                    <a href={`/console/webhooks/${w.id}`}>{w.url}</a>
                    {w.description ? <p class="small muted">{w.description}</p> : null}
                  </td>
                  <td class="perms" data-label="Events">
                    {w.events.map((e) => (
                      <span class="badge">{e}</span>
                    ))}
                  </td>
                  <td data-label="State">
                    <HealthBadge w={w} />
                    {w.health.status === 'failing' ? <p class="small error">{w.health.consecutiveFailures} failed attempts in a row</p> : null}
                  </td>
                  <td data-label="Last success">{formatTime(w.health.lastSuccessAt, timezone)}</td>
                  <td data-label="Queued">{w.health.pendingDeliveries}</td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
        )}
      </section>
      <section class="card">
        <h2>Add a webhook</h2>
        <ErrorNote message={error} />
        <PostForm action="/console/webhooks" class="stack" csrf={user.csrfToken}>
          <label>
            URL
            <input name="url" type="url" required maxlength={2000} placeholder="https://example.com/rcs-events" value={form?.url ?? ''} />
          </label>
          <label>
            Description <span class="hint">(optional)</span>
            <input name="description" maxlength={500} value={form?.description ?? ''} />
          </label>
          <EventChecks events={events} chosen={form?.events ?? []} />
          <div class="actions">
            <button type="submit">Add webhook</button>
          </div>
        </PostForm>
      </section>
    </ConsoleFrame>
  );
}

export interface WebhookDetailProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  webhook: Webhook;
  events: readonly EventChoice[];
  deliveries: Delivery[];
  nextCursor: string | null;
  revealed?: WebhookSecret | undefined;
  revealedTitle?: string | undefined;
  attempt?: AttemptReport | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}

function attemptText(a: AttemptReport): string {
  if (a.delivered) return `Delivered: the endpoint answered HTTP ${a.statusCode} in ${a.latencyMs} ms.`;
  return `Not delivered: ${a.error ?? 'unknown error'}${a.latencyMs !== null ? ` (${a.latencyMs} ms)` : ''}.`;
}

export function WebhookDetailPage({ user, accountName, timezone, webhook: w, events, deliveries, nextCursor, revealed, revealedTitle, attempt, error, notice }: WebhookDetailProps) {
  const base = `/console/webhooks/${w.id}`;
  return (
    <ConsoleFrame user={user} accountName={accountName} active="webhooks" title="Webhook" notice={notice}>
      <p class="small">
        <a href="/console/webhooks">← All webhooks</a>
      </p>
      {w.health.status === 'failing' ? (
        <section class="card failing-banner" role="alert">
          <h2>This endpoint is failing</h2>
          <p>
            {w.health.consecutiveFailures} attempts in a row failed{w.health.failingSince ? ` since ${formatTime(w.health.failingSince, timezone)}` : ''}. Last error: {w.health.lastError ?? '—'}.
          </p>
          <p class="small">
            {w.health.circuit === 'open'
              ? `Deliveries are paused: new events are queued (${w.health.pendingDeliveries} waiting) and one is tried again ${w.health.nextProbeAt ? `at ${formatTime(w.health.nextProbeAt, timezone)}` : 'soon'}; when it succeeds, the rest follow.`
              : w.health.circuit === 'half_open'
                ? `One delivery is being tried now to see whether the endpoint is back (${w.health.pendingDeliveries} waiting).`
                : `Events keep being queued and retried (${w.health.pendingDeliveries} waiting).`}{' '}
            Deliveries that gave up ({w.health.failedDeliveries}) stay in the log below and can be sent again.
          </p>
        </section>
      ) : null}
      {revealed ? <SecretBox title={revealedTitle ?? 'Signing secret'} secret={revealed} note="Keep it on your server only. Anyone with it can sign requests your receiver accepts." /> : null}
      {attempt ? (
        <p class={attempt.delivered ? 'notice' : 'notice failed'} role="status" data-testid="attempt-result">
          {attemptText(attempt)}
        </p>
      ) : null}

      <section class="card">
        <h1 class="url-cell">{w.url}</h1>
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <HealthBadge w={w} />
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{w.id}</code>
          </dd>
          <dt>Source</dt>
          <dd>{w.source === 'user' ? 'Configured here or by the API' : w.source === 'button' ? "A button's webhookUrl" : "A form's webhookUrl"}</dd>
          <dt>Secret</dt>
          <dd>
            <code>{w.secretHint}</code>
            {w.previousSecretExpiresAt ? <span class="small muted"> (previous secret signs too until {formatTime(w.previousSecretExpiresAt, timezone)})</span> : null}
          </dd>
          <dt>Last success</dt>
          <dd>{formatTime(w.health.lastSuccessAt, timezone)}</dd>
          <dt>Last failure</dt>
          <dd>{formatTime(w.health.lastFailureAt, timezone)}</dd>
        </dl>
        <div class="actions">
          <PostForm action={`${base}/test`} csrf={user.csrfToken}>
            <button type="submit" class="small" id="send-test">
              Send test event
            </button>
          </PostForm>
          <PostForm action={`${base}/reveal`} csrf={user.csrfToken}>
            <button type="submit" class="small secondary" id="reveal-secret">
              Reveal secret
            </button>
          </PostForm>
          <PostForm action={`${base}/rotate`} class="inline-form" csrf={user.csrfToken}>
            <label class="inline">
              Overlap
              <select name="overlapHours">
                <option value="24">24 hours</option>
                <option value="1">1 hour</option>
                <option value="72">3 days</option>
                <option value="0">none</option>
              </select>
            </label>
            <button type="submit" class="small secondary">
              Rotate secret
            </button>
          </PostForm>
        </div>
      </section>

      <section class="card">
        <h2>Settings</h2>
        <ErrorNote message={error} />
        <PostForm action={base} class="stack" csrf={user.csrfToken}>
          <label>
            URL
            <input name="url" type="url" required maxlength={2000} value={w.url} />
          </label>
          <label>
            Description <span class="hint">(optional)</span>
            <input name="description" maxlength={500} value={w.description ?? ''} />
          </label>
          <EventChecks events={events} chosen={w.events} />
          <label class="check">
            <input type="checkbox" name="enabled" value="on" checked={w.enabled} />
            <span>Enabled (a disabled webhook gets no new events; queued ones wait)</span>
          </label>
          <div class="actions">
            <button type="submit">Save</button>
          </div>
        </PostForm>
      </section>

      <section class="card">
        <h2>Delivery log</h2>
        {deliveries.length === 0 ? (
          <p class="muted">Nothing delivered yet.</p>
        ) : (
          <div class="wide-table" tabindex={0} role="region" aria-label="Delivery log">
            <table class="stack-table deliveries">
            <thead>
              <tr>
                <th>Event</th>
                <th>Status</th>
                <th>Attempts</th>
                <th>Last response</th>
                <th>Latency</th>
                <th>Next attempt</th>
                <th>
                  <span class="visually-hidden">Redeliver</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr data-delivery-id={d.id} class={`delivery-${d.status}`}>
                  <td data-label="Event">
                    <code>{d.event}</code>
                    <br />
                    <span class="small muted">{formatTime(d.createdAt, timezone)}</span>
                    <br />
                    <code class="small">{d.eventId}</code>
                  </td>
                  <td data-label="Status">
                    <span class={`badge ${d.status === 'delivered' ? 'status-approved' : d.status === 'failed' ? 'status-rejected' : 'status-pending'}`}>{d.status}</span>
                  </td>
                  <td data-label="Attempts">
                    {d.attempts}
                    {d.log.length > 0 ? (
                      <details class="small">
                        <summary>log</summary>
                        <ol class="attempt-log">
                          {d.log.map((a) => (
                            <li>
                              #{a.attempt} {formatTime(a.at, timezone)} — {a.outcome}
                              {a.statusCode !== null ? ` HTTP ${a.statusCode}` : ''}
                              {a.latencyMs !== null ? ` · ${a.latencyMs} ms` : ' · in progress, or cut short by a server stop'}
                              {a.manual ? ' · by hand' : ''}
                              {a.error ? <span class="error"> {a.error}</span> : null}
                            </li>
                          ))}
                        </ol>
                      </details>
                    ) : null}
                  </td>
                  <td data-label="Last response">
                    {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : '—'}
                    {d.lastError && d.lastError !== `HTTP ${d.lastStatusCode}` ? <p class="small error">{d.lastError}</p> : null}
                  </td>
                  <td data-label="Latency">{d.lastLatencyMs !== null ? `${d.lastLatencyMs} ms` : '—'}</td>
                  <td data-label="Next attempt">{d.status === 'pending' ? formatTime(d.nextAttemptAt, timezone) : '—'}</td>
                  <td>
                    <PostForm action={`${base}/deliveries/${d.id}/redeliver`} csrf={user.csrfToken}>
                      <button type="submit" class="small secondary" aria-label={`Redeliver ${d.eventId}`}>
                        Redeliver
                      </button>
                    </PostForm>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
        )}
        {nextCursor ? (
          <p>
            <a href={`${base}?cursor=${encodeURIComponent(nextCursor)}`}>Older deliveries →</a>
          </p>
        ) : null}
      </section>

      <section class="card">
        <h2>Delete</h2>
        <p class="muted small">Deletes the webhook, its queued deliveries and its log.</p>
        <PostForm action={`${base}/delete`} csrf={user.csrfToken}>
          <button type="submit" class="danger small">
            Delete webhook
          </button>
        </PostForm>
      </section>
    </ConsoleFrame>
  );
}
