import { ErrorNote, Layout, PostForm } from './layout.js';

export interface ConsentScope {
  scope: string;
  description: string;
  checked: boolean;
  /** webhooks:manage, forms:manage: shown apart and never ticked in advance. */
  management?: boolean;
}

export interface ConsentPageProps {
  user: { email: string; csrfToken: string };
  accountName: string;
  requestId: string;
  client: {
    clientId: string;
    /** Self-declared by the app (registration or metadata document); never trusted blindly. */
    name: string | null;
    kind: 'registered' | 'metadata_document';
    /** Where the browser is sent afterwards. */
    redirectUri: string;
  };
  scopes: ConsentScope[];
  error?: string | undefined;
}

const hostOf = (uri: string): string => {
  try {
    const u = new URL(uri);
    return u.host || u.protocol;
  } catch {
    return uri;
  }
};

/** The OAuth consent page: who asks, for which account, which permissions, and where it returns. */
export function ConsentPage({ user, accountName, requestId, client, scopes, error }: ConsentPageProps) {
  const name = client.name ?? 'An unnamed app';
  return (
    <Layout title="Connect an app" user={user}>
      <section class="card consent">
        <h1>
          Allow <span class="client-name">{name}</span> to use your account?
        </h1>
        <p class="muted">
          {client.kind === 'metadata_document'
            ? `This app identifies itself with a metadata document published at ${hostOf(client.clientId)}.`
            : 'This app registered itself; its name is what it told us and is not verified.'}{' '}
          Only continue if you started this connection from your assistant.
        </p>
        <dl class="facts">
          <dt>Account</dt>
          <dd>{accountName}</dd>
          <dt>Signed in as</dt>
          <dd>{user.email}</dd>
          <dt>App ID</dt>
          <dd>
            <code>{client.clientId}</code>
          </dd>
          <dt>Returns to</dt>
          <dd>
            <code>{hostOf(client.redirectUri)}</code>
          </dd>
          <dt>Access lasts</dt>
          <dd>30 days, or until you revoke it under Console → Connected apps</dd>
        </dl>
        <ErrorNote message={error} />
        <PostForm action="/consent" class="stack" csrf={user.csrfToken}>
          <input type="hidden" name="request" value={requestId} />
          <fieldset class="scopes">
            <legend>Permissions requested</legend>
            {scopes.map((s) => (
              <label class={s.management ? 'check management' : 'check'}>
                <input type="checkbox" name="scope" value={s.scope} checked={s.checked} />
                <span>
                  <code>{s.scope}</code> {s.description}
                  {s.management ? <strong> — account administration: tick only if you want this app to do it.</strong> : null}
                </span>
              </label>
            ))}
          </fieldset>
          <p class="muted small">Every message this app sends waits for your approval on its preview page, whatever the account’s approval setting.</p>
          <div class="actions">
            <button type="submit" name="decision" value="approve">
              Allow
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              Deny
            </button>
          </div>
        </PostForm>
      </section>
    </Layout>
  );
}
