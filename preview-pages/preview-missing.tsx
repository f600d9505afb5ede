import { Layout } from './layout.js';

/**
 * What /preview/<slug> shows when there is no such preview for the signed-in account: an unknown
 * slug and another account's preview get this same page and status, so a link reveals nothing
 * about previews the person may not see.
 */
export function PreviewMissingPage({ user }: { user?: { email: string; csrfToken: string } | undefined }) {
  return (
    <Layout title="Preview not found" user={user}>
      <section class="card preview-missing" data-testid="preview-missing">
        <h1>Preview not found</h1>
        <p>This link does not lead to a preview of the account you are logged in with.</p>
        <ul>
          <li>
            If the preview belongs to another account, <strong>log in with the account that owns it</strong>
            {user ? ' (log out first)' : ''}.
          </li>
          <li>
            If the link is old or incomplete, <strong>ask the assistant to preview the message again</strong> and open the new link it gives you.
          </li>
        </ul>
        <p>
          <a href="/console">Go to the console</a>
        </p>
      </section>
    </Layout>
  );
}
