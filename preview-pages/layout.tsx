import type { ComponentChildren } from 'preact';

export interface LayoutProps {
  title: string;
  children: ComponentChildren;
  /** The signed-in person, shown in the header with a logout button. */
  user?: { email: string; csrfToken: string } | undefined;
  /** Extra scripts served from /assets (never inline: the CSP forbids it). */
  scripts?: string[];
  wide?: boolean;
}

/** The one page frame: header, main, one stylesheet. */
export function Layout({ title, children, user, scripts = [], wide = false }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${title} · RCS MCP Server`}</title>
        <link rel="stylesheet" href="/assets/app.css" />
        {scripts.map((s) => (
          <script src={`/assets/${s}`} defer />
        ))}
      </head>
      <body>
        <header class="topbar">
          <a class="brand" href={user ? '/console' : '/'}>
            RCS&nbsp;MCP&nbsp;Server
          </a>
          {user ? (
            <PostForm action="/logout" class="logout" csrf={user.csrfToken}>
              <span class="who">{user.email}</span>
              <button type="submit" class="link">
                Log out
              </button>
            </PostForm>
          ) : null}
        </header>
        <main class={wide ? 'wide' : 'narrow'}>{children}</main>
      </body>
    </html>
  );
}

/**
 * Every state-changing form: a POST that carries the CSRF token (of the session, or the
 * double-submit cookie before login). Writing forms through this keeps the token from being forgotten.
 */
export function PostForm({ action, csrf, class: className, novalidate, children }: { action: string; csrf: string; class?: string; novalidate?: boolean; children: ComponentChildren }) {
  return (
    <form method="post" action={action} class={className} novalidate={novalidate}>
      <input type="hidden" name="csrf" value={csrf} />
      {children}
    </form>
  );
}

export function ErrorNote({ message }: { message?: string | undefined }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}
