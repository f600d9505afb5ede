import type { ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import { PageLocals } from '../../src/platform/http/pages.js';
import { Layout } from '../layout.js';

export type ConsoleTab = 'overview' | 'approvals' | 'api-keys' | 'apps' | 'senders' | 'credits' | 'webhooks' | 'forms' | 'consent' | 'settings';

const TABS: Array<[ConsoleTab, string, string]> = [
  ['overview', 'Overview', '/console'],
  ['approvals', 'Approvals', '/console/approvals'],
  ['api-keys', 'API keys', '/console/api-keys'],
  ['apps', 'Connected apps', '/console/apps'],
  ['senders', 'Senders', '/console/senders'],
  ['credits', 'Credits', '/console/credits'],
  ['webhooks', 'Webhooks', '/console/webhooks'],
  ['forms', 'Forms', '/console/forms'],
  ['consent', 'Consent', '/console/consent'],
  ['settings', 'Settings', '/console/settings'],
];

export interface ConsoleUser {
  email: string;
  csrfToken: string;
}

export interface ConsoleFrameProps {
  user: ConsoleUser;
  accountName: string;
  active: ConsoleTab;
  title: string;
  /** A fixed confirmation ("Key revoked."); never text from the request. */
  notice?: string | undefined;
  children: ComponentChildren;
}

/** Every console page: the account name, tabs, an optional confirmation, the section. */
export function ConsoleFrame({ user, accountName, active, title, notice, children }: ConsoleFrameProps) {
  // How many previews wait for a person: set for every console page by src/console/routes.ts.
  const waiting = useContext(PageLocals).approvalsWaiting;
  return (
    <Layout title={`${title} · ${accountName}`} user={user} wide>
      <div class="console-head">
        <p class="account-name">{accountName}</p>
        <nav class="tabs" aria-label="Console">
          {TABS.map(([id, label, href]) => (
            <a href={href} class={id === active ? 'tab active' : 'tab'} aria-current={id === active ? 'page' : undefined}>
              {label}
              {id === 'approvals' && typeof waiting === 'number' && waiting > 0 ? (
                <span class="count" data-testid="approvals-count" aria-label={`${waiting} waiting`}>
                  {waiting > 99 ? '99+' : waiting}
                </span>
              ) : null}
            </a>
          ))}
        </nav>
      </div>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {children}
    </Layout>
  );
}

/** A section whose data another area provides; shown until that area plugs in. */
export function Placeholder({ children }: { children: ComponentChildren }) {
  return <p class="muted placeholder">{children}</p>;
}
