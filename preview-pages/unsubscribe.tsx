import { ErrorNote, Layout, PostForm } from './layout.js';

export interface UnsubscribePageProps {
  state: 'confirm' | 'done' | 'already';
  accountName: string;
  phoneEnding: string;
  /** ISO date the number opted out ("2026-01-15"), for done/already. */
  optedOutOn?: string | undefined;
  /** The form's double-submit token (confirm state). */
  csrf?: string | undefined;
  /** Path the confirm form posts to (/u/<token>). */
  action?: string | undefined;
  error?: string | undefined;
}

/**
 * The unsubscribe page behind `{{unsubscribe_link}}`: one button, no script. Visiting changes
 * nothing (link scanners open links too); pressing the button opts the number out.
 */
export function UnsubscribePage({ state, accountName, phoneEnding, optedOutOn, csrf, action, error }: UnsubscribePageProps) {
  if (state === 'confirm') {
    return (
      <Layout title="Unsubscribe">
        <section class="card unsubscribe">
          <h1>Unsubscribe from {accountName}</h1>
          <ErrorNote message={error} />
          <p>
            Stop all messages from <strong>{accountName}</strong> to the number ending in <strong class="nowrap">{phoneEnding}</strong>?
          </p>
          <PostForm action={action ?? ''} class="stack" csrf={csrf ?? ''}>
            <button type="submit" class="danger" id="unsubscribe-confirm">
              Unsubscribe
            </button>
          </PostForm>
          <p class="muted small">Scheduled messages to this number are cancelled as well. You can also reply STOP to any of their messages.</p>
        </section>
      </Layout>
    );
  }
  return (
    <Layout title={state === 'done' ? 'Unsubscribed' : 'Already unsubscribed'}>
      <section class="card unsubscribe" role="status">
        <h1>{state === 'done' ? 'You are unsubscribed' : 'Already unsubscribed'}</h1>
        <p class="ok">
          {accountName} will not send messages to the number ending in {phoneEnding} any more
          {optedOutOn ? ` (unsubscribed on ${optedOutOn})` : ''}.
        </p>
        <p class="muted small">Changed your mind? Reply START to one of their messages.</p>
      </section>
    </Layout>
  );
}

export function UnsubscribeNotFoundPage() {
  return (
    <Layout title="Link not valid">
      <section class="card unsubscribe">
        <h1>This unsubscribe link is not valid</h1>
        <p class="muted">It may have been copied incompletely. Reply STOP to the message instead, and you will not receive further messages.</p>
      </section>
    </Layout>
  );
}
