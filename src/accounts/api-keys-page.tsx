import type { ApiKeyInfo } from './api-keys.js';
import { ErrorNote, PostForm } from '../../preview-pages/layout.js';
import { ConsoleFrame, type ConsoleUser } from '../../preview-pages/console/frame.js';
import { formatTime } from '../../preview-pages/console/format.js';
import { BudgetCell, LimitsHint, type BudgetView } from '../billing/budget-page.js';

export interface ApiKeysPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  keys: ApiKeyInfo[];
  /** Each active key's limits and use (issue #29), by key id. */
  budgets: Readonly<Record<string, BudgetView>>;
  /** A refused limit change, shown above the list. */
  limitsError?: string | undefined;
  permissions: ReadonlyArray<{ value: string; description: string }>;
  /** The secret of a key just created: shown on this response only. */
  created?: { key: string; info: ApiKeyInfo } | undefined;
  error?: string | undefined;
  form?: { name: string; permissions: string[]; sendsNeedApproval: boolean; dailyCredits?: string; maxRecipients?: string } | undefined;
  notice?: string | undefined;
}

export function ApiKeysPage({ user, accountName, timezone, keys, budgets, limitsError, permissions, created, error, form, notice }: ApiKeysPageProps) {
  const active = keys.filter((k) => k.revokedAt === null);
  const revoked = keys.filter((k) => k.revokedAt !== null);
  return (
    <ConsoleFrame user={user} accountName={accountName} active="api-keys" title="API keys" notice={notice}>
      {created ? (
        <section class="card created-key" aria-live="polite">
          <h2>Key “{created.info.name}” created</h2>
          <p>Copy the key now. It is shown only once; the server keeps only a hash of it.</p>
          <p>
            <code class="secret" data-testid="new-api-key">
              {created.key}
            </code>
          </p>
          <p class="muted small">Send it as the X-API-Key header, or as Authorization: Bearer, to the REST API or the MCP endpoint.</p>
          <p class="muted small">
            {created.info.sendsNeedApproval
              ? 'Its sends need approval: every message waits for a person on its preview page. This is the kind of key to give an assistant.'
              : 'It sends directly, without approval. Do not give it to an assistant.'}
          </p>
        </section>
      ) : null}

      <section class="card">
        <h1>API keys</h1>
        <ErrorNote message={limitsError} />
        {active.length === 0 ? (
          <p class="muted">No active keys.</p>
        ) : (
          <table class="keys stack-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Permissions</th>
                <th>Sends</th>
                <th>Budget</th>
                <th>Created</th>
                <th>Last used</th>
                <th>
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map((k) => (
                <tr data-key-id={k.id}>
                  <td data-label="Name">
                    <strong>{k.name}</strong>
                  </td>
                  <td data-label="Key">
                    <code>{k.prefix}…</code>
                  </td>
                  <td class="perms" data-label="Permissions">
                    {k.permissions.map((p) => (
                      <span class="badge">{p}</span>
                    ))}
                  </td>
                  <td class="sends" data-label="Sends" data-sends-need-approval={k.sendsNeedApproval ? 'true' : 'false'}>
                    {k.sendsNeedApproval ? <span class="badge status-approved">need approval</span> : <span class="badge status-pending">directly</span>}
                  </td>
                  <td class="budget-cell" data-label="Budget">
                    {budgets[k.id] ? (
                      <BudgetCell budget={budgets[k.id]!} usageHref={`/console/usage?credential=${encodeURIComponent(k.id)}`} action={`/console/api-keys/${k.id}/limits`} csrf={user.csrfToken} hidden={{}} name={k.name} />
                    ) : null}
                  </td>
                  <td data-label="Created">{formatTime(k.createdAt, timezone)}</td>
                  <td data-label="Last used">{formatTime(k.lastUsedAt, timezone)}</td>
                  <td>
                    <PostForm action={`/console/api-keys/${k.id}/revoke`} csrf={user.csrfToken}>
                      <button type="submit" class="danger small" aria-label={`Revoke ${k.name}`}>
                        Revoke
                      </button>
                    </PostForm>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {active.length > 0 ? <LimitsHint /> : null}
      </section>

      <section class="card">
        <h2>Create a key</h2>
        <ErrorNote message={error} />
        <PostForm action="/console/api-keys" class="stack" csrf={user.csrfToken}>
          <label>
            Name
            <input name="name" required maxlength={100} placeholder="CRM sync" value={form?.name ?? ''} />
          </label>
          <fieldset class="scopes">
            <legend>Permissions</legend>
            <div class="check-grid">
              {permissions.map((p) => (
                <label class="check">
                  <input type="checkbox" name="permissions" value={p.value} checked={form?.permissions.includes(p.value) ?? false} />
                  <span>
                    <code>{p.value}</code> {p.description}
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          <label class="check">
            <input type="checkbox" name="sendsNeedApproval" value="1" checked={form?.sendsNeedApproval ?? false} />
            <span>
              <strong>Sends need approval</strong> — every message sent with this key waits for a person on its preview page (REST: <code>/api/rcs/previews/*</code>),
              and the key never sees webhook signing secrets. Tick it for a key you give to an assistant; leave it for your own server-side code.
            </span>
          </label>
          <fieldset class="scopes">
            <legend>Limits (optional)</legend>
            <div class="field-grid">
              <label>
                Credits per UTC day
                <input name="dailyCredits" inputMode="decimal" placeholder="no limit" value={form?.dailyCredits ?? ''} />
              </label>
              <label>
                Recipients per send
                <input name="maxRecipients" inputMode="numeric" placeholder="no limit" value={form?.maxRecipients ?? ''} />
              </label>
            </div>
          </fieldset>
          <div class="actions">
            <button type="submit">Create key</button>
          </div>
        </PostForm>
      </section>

      {revoked.length > 0 ? (
        <section class="card">
          <h2>Revoked keys</h2>
          <table class="stack-table revoked-keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Sends</th>
                <th>Revoked</th>
              </tr>
            </thead>
            <tbody>
              {revoked.map((k) => (
                <tr data-key-id={k.id} class="revoked">
                  <td data-label="Name">{k.name}</td>
                  <td data-label="Key">
                    <code>{k.prefix}…</code>
                  </td>
                  <td data-label="Sends">{k.sendsNeedApproval ? 'need approval' : 'directly'}</td>
                  <td data-label="Revoked">{formatTime(k.revokedAt, timezone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </ConsoleFrame>
  );
}
