import { ErrorNote, Layout, PostForm } from './layout.js';

/**
 * The login form. The code field is optional: left empty, the code is asked on the next page. While
 * failed attempts slow the form (`slowed`), password and code together still let the person in.
 */
export function LoginPage({ csrf, next, error, email, slowed = false }: { csrf: string; next: string; error?: string | undefined; email?: string | undefined; slowed?: boolean }) {
  return (
    <Layout title="Log in">
      <section class="card">
        <h1>Log in</h1>
        <ErrorNote message={error} />
        {slowed ? <p>If this is your account, enter your password and the code from your authenticator app together: with both you can log in now.</p> : null}
        <PostForm action="/login" class="stack" csrf={csrf}>
          <input type="hidden" name="next" value={next} />
          <label>
            Email
            <input type="email" name="email" autocomplete="username" required value={email ?? ''} />
          </label>
          <label>
            Password
            <input type="password" name="password" autocomplete="current-password" required />
          </label>
          <label>
            Code from your authenticator app {slowed ? null : <span class="muted">(optional: asked next if left empty)</span>}
            <input name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength={7} />
          </label>
          <button type="submit">Continue</button>
        </PostForm>
      </section>
    </Layout>
  );
}

export function TotpPage({ csrf, next, error }: { csrf: string; next: string; error?: string | undefined }) {
  return (
    <Layout title="Second factor">
      <section class="card">
        <h1>Enter your code</h1>
        <p class="muted">Open your authenticator app and enter the 6-digit code for this server.</p>
        <ErrorNote message={error} />
        <PostForm action="/login/totp" class="stack" csrf={csrf}>
          <input type="hidden" name="next" value={next} />
          <label>
            Code
            <input name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength={7} required />
          </label>
          <button type="submit">Log in</button>
        </PostForm>
      </section>
    </Layout>
  );
}

export function MessagePage({ title, message, status }: { title: string; message: string; status?: 'error' | 'info' }) {
  return (
    <Layout title={title}>
      <section class="card">
        <h1>{title}</h1>
        <p class={status === 'error' ? 'error' : ''}>{message}</p>
      </section>
    </Layout>
  );
}
