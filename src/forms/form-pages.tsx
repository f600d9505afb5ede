import type { ConfirmView, PublicForm } from './schemas.js';
import { ErrorNote, Layout, PostForm } from '../../preview-pages/layout.js';

export interface FormPageProps {
  form: PublicForm;
  /** The double-submit token (same value as the cookie). */
  csrf: string;
  values?: Record<string, string> | undefined;
  errors?: Record<string, string> | undefined;
  /** A problem not tied to one field (expired form, too many attempts). */
  error?: string | undefined;
}

function FieldError({ message, id }: { message?: string | undefined; id: string }) {
  return message ? (
    <span class="field-error" id={id} role="alert">
      {message}
    </span>
  ) : null;
}

/**
 * The public opt-in form /f/<slug>: plain HTML, no script. Every text of the account is rendered
 * escaped (preact). The hidden "website" input is a trap for bots; people never see it.
 */
export function FormPage({ form, csrf, values = {}, errors = {}, error }: FormPageProps) {
  const input = (name: string, label: string, mode: 'optional' | 'required', type: string, autocomplete: string, hint?: string) => (
    <label>
      <span>
        {label}
        {mode === 'optional' ? <span class="hint"> (optional)</span> : null}
      </span>
      <input
        name={name}
        type={type}
        autocomplete={autocomplete}
        required={mode === 'required'}
        value={values[name] ?? ''}
        aria-invalid={errors[name] ? 'true' : undefined}
        aria-describedby={errors[name] ? `${name}-error` : undefined}
        maxlength={name === 'email' ? 254 : name === 'phone' ? 40 : 500}
      />
      {hint ? <span class="hint">{hint}</span> : null}
      <FieldError message={errors[name]} id={`${name}-error`} />
    </label>
  );
  return (
    <Layout title={form.title}>
      <section class="card optin-form">
        <p class="muted small">{form.accountName}</p>
        <h1>{form.title}</h1>
        {form.description ? <p class="form-description">{form.description}</p> : null}
        <ErrorNote message={error} />
        <PostForm action={`/f/${form.slug}`} class="stack" novalidate csrf={csrf}>
          {input('phone', 'Mobile number', 'required', 'tel', 'tel', 'With country code, e.g. +49 151 12345678')}
          {form.firstName !== 'off' ? input('firstName', 'First name', form.firstName, 'text', 'given-name') : null}
          {form.email !== 'off' ? input('email', 'Email', form.email, 'email', 'email') : null}
          {form.customFields.map((f) => input(`cf_${f.fieldId}`, f.label, f.required ? 'required' : 'optional', 'text', 'off'))}
          <div class="hp" aria-hidden="true">
            <label>
              Website
              <input name="website" type="text" tabindex={-1} autocomplete="off" value="" />
            </label>
          </div>
          <p class="consent small">{form.consentText}</p>
          <div class="actions">
            <button type="submit" id="optin-submit">
              {form.doubleOptIn ? 'Sign up' : 'Subscribe'}
            </button>
          </div>
          {form.doubleOptIn ? <p class="muted small">We will text you a link to confirm your number.</p> : null}
        </PostForm>
      </section>
    </Layout>
  );
}

/** After a submission: where to look next. Says the same whether or not an SMS went out now. */
export function FormSentPage({ form, doubleOptIn }: { form: PublicForm; doubleOptIn: boolean }) {
  return (
    <Layout title={form.title}>
      <section class="card optin-form" role="status">
        <p class="muted small">{form.accountName}</p>
        {doubleOptIn ? (
          <>
            <h1>Check your phone</h1>
            <p>We sent you a text message with a link. Open it to confirm your subscription to “{form.name}”.</p>
            <p class="muted small">Nothing arrived? A link we sent within the last hour is still valid; otherwise you can sign up again later.</p>
          </>
        ) : (
          <>
            <h1>You are subscribed</h1>
            <p class="ok">Thank you. You will receive messages from {form.accountName}.</p>
            <p class="muted small">Reply STOP to any message to unsubscribe.</p>
          </>
        )}
      </section>
    </Layout>
  );
}

export function FormNotFoundPage() {
  return (
    <Layout title="Form not available">
      <section class="card optin-form">
        <h1>This form is not available</h1>
        <p class="muted">The link may be mistyped, or the form has been closed.</p>
      </section>
    </Layout>
  );
}

export interface ConfirmPageProps {
  view: ConfirmView;
  csrf?: string | undefined;
  action?: string | undefined;
  error?: string | undefined;
}

/** /f/confirm/<token>: one button (visiting changes nothing; link previews open links too). */
export function ConfirmPage({ view, csrf, action, error }: ConfirmPageProps) {
  const head = <p class="muted small">{view.accountName}</p>;
  if (view.state === 'confirm') {
    return (
      <Layout title="Confirm your subscription">
        <section class="card optin-form">
          {head}
          <h1>Confirm your subscription</h1>
          <ErrorNote message={error} />
          <p>
            Confirm that the number ending in <strong class="nowrap">{view.phoneEnding}</strong> may receive messages from {view.accountName}: “{view.formName}”.
          </p>
          <PostForm action={action ?? ''} class="stack" csrf={csrf ?? ''}>
            <button type="submit" id="confirm-optin">
              Confirm subscription
            </button>
          </PostForm>
        </section>
      </Layout>
    );
  }
  if (view.state === 'expired') {
    return (
      <Layout title="Link expired">
        <section class="card optin-form">
          {head}
          <h1>This link has expired</h1>
          <p class="muted">Please fill in the form again to get a new link.</p>
        </section>
      </Layout>
    );
  }
  return (
    <Layout title="Subscription confirmed">
      <section class="card optin-form" role="status">
        {head}
        <h1>{view.state === 'confirmed' ? 'Subscription confirmed' : 'Already confirmed'}</h1>
        <p class="ok">
          The number ending in {view.phoneEnding} is subscribed to “{view.formName}”.
        </p>
        <p class="muted small">Reply STOP to any message to unsubscribe.</p>
      </section>
    </Layout>
  );
}

export function ConfirmNotFoundPage() {
  return (
    <Layout title="Link not valid">
      <section class="card optin-form">
        <h1>This confirmation link is not valid</h1>
        <p class="muted">It may have been copied incompletely. Please use the link from the text message, or fill in the form again.</p>
      </section>
    </Layout>
  );
}
