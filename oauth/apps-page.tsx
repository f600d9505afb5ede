import { ErrorNote, PostForm } from '../preview-pages/layout.js';
import type { ConnectedApp } from './schemas.js';
import { ConsoleFrame, type ConsoleUser } from '../preview-pages/console/frame.js';
import { formatTime } from '../preview-pages/console/format.js';
import { BudgetCell, LimitsHint, type BudgetView } from '../src/billing/budget-page.js';

export interface AppsPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  apps: ConnectedApp[];
  /** Each app's limits and use (issue #29), by client_id: one budget per app, whoever connected it. */
  budgets: Readonly<Record<string, BudgetView>>;
  limitsError?: string | undefined;
  notice?: string | undefined;
}

/** Assistants connected by OAuth, per app and person, with their budgets and revocation. */
export function AppsPage({ user, accountName, timezone, apps, budgets, limitsError, notice }: AppsPageProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="apps" title="Connected apps" notice={notice}>
      <section class="card">
        <h1>Connected apps</h1>
        <p class="muted">
          Assistants you or your colleagues connected with OAuth. Access lasts 30 days from each authorization; revoking
          ends it at once. An app's limits hold for all its connections in this account.
        </p>
        <ErrorNote message={limitsError} />
        {apps.length === 0 ? (
          <p class="muted">No app is connected.</p>
        ) : (
          <table class="apps stack-table">
            <thead>
              <tr>
                <th>App</th>
                <th>Authorized by</th>
                <th>Permissions</th>
                <th>Budget</th>
                <th>Authorized</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {apps.map((a) => (
                <tr data-client-id={a.clientId}>
                  <td data-label="App">
                    <strong>{a.clientName ?? 'Unnamed app'}</strong>
                    <br />
                    <code class="small">{a.clientId}</code>
                  </td>
                  <td data-label="Authorized by">{a.userEmail}</td>
                  <td class="perms" data-label="Permissions">
                    {a.scopes.map((s) => (
                      <span class="badge">{s}</span>
                    ))}
                  </td>
                  <td class="budget-cell" data-label="Budget">
                    {budgets[a.clientId] ? (
                      <BudgetCell
                        budget={budgets[a.clientId]!}
                        usageHref={`/console/usage?credential=${encodeURIComponent(a.clientId)}`}
                        action="/console/apps/limits"
                        csrf={user.csrfToken}
                        hidden={{ client_id: a.clientId }}
                        name={a.clientName ?? 'Unnamed app'}
                      />
                    ) : null}
                  </td>
                  <td data-label="Authorized">{formatTime(a.lastAuthorizedAt, timezone)}</td>
                  <td data-label="Last used">{formatTime(a.lastUsedAt, timezone)}</td>
                  <td data-label="Expires">{formatTime(a.expiresAt, timezone)}</td>
                  <td>
                    <PostForm action="/console/apps/revoke" csrf={user.csrfToken}>
                      <input type="hidden" name="client_id" value={a.clientId} />
                      <input type="hidden" name="user_id" value={a.userId} />
                      <button type="submit" class="danger small">
                        Revoke
                      </button>
                    </PostForm>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {apps.length > 0 ? <LimitsHint /> : null}
      </section>
    </ConsoleFrame>
  );
}
