import type { Sendername } from '../../src/senders/schemas.js';
import { ConsoleFrame, type ConsoleUser } from './frame.js';
import { formatTime } from './format.js';

export interface SendersPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  senders: readonly Sendername[];
}

/** Read-only: sender identities are approved by the operator (admin CLI). */
export function SendersPage({ user, accountName, timezone, senders }: SendersPageProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="senders" title="Senders">
      <section class="card">
        <h1>Senders</h1>
        <p class="muted">Sender names are registered and approved by the operator of this server. Only APPROVED senders can send.</p>
        {senders.length === 0 ? (
          <p class="muted">No senders yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Type</th>
                <th>Status</th>
                <th>Flags</th>
                <th>Opt-out keyword</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {senders.map((s) => (
                <tr>
                  <td>
                    {s.name}
                    <br />
                    <code class="small">{s.id}</code>
                  </td>
                  <td>{s.type}</td>
                  <td>
                    <span class={`badge status-${s.status.toLowerCase()}`}>{s.status}</span>
                    {s.rejectionReason ? <p class="small error">{s.rejectionReason}</p> : null}
                  </td>
                  <td>
                    {s.isDefault ? <span class="badge">default</span> : null}
                    {s.isTest ? <span class="badge">test</span> : null}
                    {s.supportsConversationBilling ? <span class="badge">conversation billing</span> : null}
                    {s.testPhones && s.testPhones.length > 0 ? <p class="small muted">Test phones: {s.testPhones.join(', ')}</p> : null}
                  </td>
                  <td>
                    <code>{s.stopKeyword}</code>
                  </td>
                  <td>{formatTime(s.createdAt, timezone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </ConsoleFrame>
  );
}
