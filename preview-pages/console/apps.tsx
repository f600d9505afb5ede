import { PostForm } from '../layout.js';
import type { ConnectedApp } from '../../oauth/schemas.js';
import { ConsoleFrame, type ConsoleUser } from './frame.js';
import { formatTime } from './format.js';

export interface AppsPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  apps: ConnectedApp[];
  notice?: string | undefined;
}

/** Assistants connected by OAuth, per app and person, with revocation. */
export function AppsPage({ user, accountName, timezone, apps, notice }: AppsPageProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="apps" title="Connected apps" notice={notice}>
      <section class="card">
        <h1>Connected apps</h1>
        <p class="muted">
          Assistants you or your colleagues connected with OAuth. Access lasts 30 days from each authorization; revoking
          ends it at once.
        </p>
        {apps.length === 0 ? (
          <p class="muted">No app is connected.</p>
        ) : (
          <table class="apps">
            <thead>
              <tr>
                <th>App</th>
                <th>Authorized by</th>
                <th>Permissions</th>
                <th>Authorized</th>
                <th>Last used</th>
                <th>Expires</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {apps.map((a) => (
                <tr data-client-id={a.clientId}>
                  <td>
                    <strong>{a.clientName ?? 'Unnamed app'}</strong>
                    <br />
                    <code class="small">{a.clientId}</code>
                  </td>
                  <td>{a.userEmail}</td>
                  <td class="perms">
                    {a.scopes.map((s) => (
                      <span class="badge">{s}</span>
                    ))}
                  </td>
                  <td>{formatTime(a.lastAuthorizedAt, timezone)}</td>
                  <td>{formatTime(a.lastUsedAt, timezone)}</td>
                  <td>{formatTime(a.expiresAt, timezone)}</td>
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
      </section>
    </ConsoleFrame>
  );
}
