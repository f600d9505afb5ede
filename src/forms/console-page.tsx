import { describeConfirmationLimit, type Form, type Submission } from './schemas.js';
import { ErrorNote, PostForm } from '../../preview-pages/layout.js';
import { ConsoleFrame, type ConsoleUser } from '../../preview-pages/console/frame.js';
import { formatTime } from '../../preview-pages/console/format.js';

/** What the editor shows (a form being created, or an existing one). */
export interface FormEditorValues {
  name: string;
  slug: string;
  title: string;
  description: string;
  firstName: string;
  email: string;
  customFields: Array<{ fieldId: string; required: boolean }>;
  groups: string[];
  doubleOptIn: boolean;
  sendernameId: string;
  message: string;
  applyData: boolean;
  consentText: string;
  webhookUrl: string;
  active: boolean;
}

export interface EditorChoices {
  fields: Array<{ id: string; name: string; tag: string }>;
  groups: Array<{ id: string; name: string }>;
  senders: Array<{ id: string; name: string }>;
  defaultMessage: string;
}

/** A cap on confirmation SMS held back a submission of the form in the last 24 hours: which cap and when. */
function LimitWarning({ form, timezone, detail }: { form: Form; timezone: string; detail?: boolean }) {
  const hit = form.confirmationLimitHit;
  if (!hit) return null;
  return (
    <p class="confirmation-limit-warning small" role="status">
      Confirmation SMS held back: the limit of {describeConfirmationLimit(hit.limit, hit.max)} was reached (last at {formatTime(hit.at, timezone)}). Visitors were
      asked to try again later.{' '}
      {detail ? (
        <>
          The limits are in <a href="/console/settings">Settings</a>.
        </>
      ) : null}
    </p>
  );
}

const MODES: Array<[string, string]> = [
  ['off', 'Not asked'],
  ['optional', 'Optional'],
  ['required', 'Required'],
];

function FormEditor({ user, action, values, choices, submitLabel }: { user: ConsoleUser; action: string; values: FormEditorValues; choices: EditorChoices; submitLabel: string }) {
  const cf = new Map(values.customFields.map((f) => [f.fieldId, f.required]));
  return (
    <PostForm action={action} class="stack form-editor" csrf={user.csrfToken}>
      <div class="field-grid">
        <label>
          Name
          <input name="name" required maxlength={100} value={values.name} />
        </label>
        <label>
          Page address <span class="hint">/f/…, lower-case letters, digits, dashes; empty: from the name</span>
          <input name="slug" maxlength={64} pattern="[a-z0-9][a-z0-9\-]{1,62}[a-z0-9]" value={values.slug} />
        </label>
        <label>
          Heading <span class="hint">(optional; default the name)</span>
          <input name="title" maxlength={200} value={values.title} />
        </label>
      </div>
      <label>
        Text under the heading <span class="hint">(optional)</span>
        <textarea name="description" maxlength={1000} rows={2}>
          {values.description}
        </textarea>
      </label>
      <fieldset class="scopes">
        <legend>Fields (the mobile number is always asked)</legend>
        <div class="field-grid">
          {(
            [
              ['firstName', 'First name'],
              ['email', 'Email'],
            ] as const
          ).map(([name, label]) => (
            <label>
              {label}
              <select name={name}>
                {MODES.map(([v, l]) => (
                  <option value={v} selected={values[name] === v}>
                    {l}
                  </option>
                ))}
              </select>
            </label>
          ))}
        </div>
        {choices.fields.length > 0 ? (
          <div class="check-grid">
            {choices.fields.map((f) => (
              <span class="cf-choice">
                <label class="check">
                  <input type="checkbox" name="cf" value={f.id} checked={cf.has(f.id)} />
                  <span>
                    {f.name} <code>{`{{${f.tag}}}`}</code>
                  </span>
                </label>
                <label class="check small">
                  <input type="checkbox" name="cfreq" value={f.id} checked={cf.get(f.id) === true} />
                  <span>required</span>
                </label>
              </span>
            ))}
          </div>
        ) : (
          <p class="muted small">No custom fields on this account yet.</p>
        )}
      </fieldset>
      <fieldset class="scopes">
        <legend>Groups to join on confirmation</legend>
        {choices.groups.length > 0 ? (
          <div class="check-grid">
            {choices.groups.map((g) => (
              <label class="check">
                <input type="checkbox" name="groups" value={g.id} checked={values.groups.includes(g.id)} />
                <span>{g.name}</span>
              </label>
            ))}
          </div>
        ) : (
          <p class="muted small">No groups on this account yet.</p>
        )}
      </fieldset>
      <fieldset class="scopes">
        <legend>Opt-in</legend>
        <label class="check">
          <input type="checkbox" name="doubleOptIn" value="on" checked={values.doubleOptIn} />
          <span>Double opt-in: text a confirmation link; the number is subscribed only after it is opened and confirmed</span>
        </label>
        <label>
          Confirmation SMS sender
          <select name="sendernameId">
            <option value="">—</option>
            {choices.senders.map((s) => (
              <option value={s.id} selected={values.sendernameId === s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Confirmation SMS{' '}
          <span class="hint">
            must contain {'{{confirm_link}}'}; may use {'{{form_name}}'}, {'{{submitted_first_name}}'} (the first name typed into the form), {'{{today}}'} and the
            company fields such as {'{{company_name}}'} — no contact or custom fields: nobody approves these messages
          </span>
          <textarea name="message" rows={2} maxlength={400}>
            {values.message || choices.defaultMessage}
          </textarea>
        </label>
        <label class="check">
          <input type="checkbox" name="applyData" value="on" checked={values.applyData} />
          <span>Write the submitted name, email, custom fields and groups to the contact when confirmed</span>
        </label>
        <label>
          Consent text <span class="hint">(optional; shown above the button)</span>
          <textarea name="consentText" rows={2} maxlength={500}>
            {values.consentText}
          </textarea>
        </label>
      </fieldset>
      <label>
        Webhook URL for this form <span class="hint">(optional; otherwise your webhooks subscribed to form events get them)</span>
        <input name="webhookUrl" type="url" maxlength={2000} value={values.webhookUrl} />
      </label>
      <label class="check">
        <input type="checkbox" name="active" value="on" checked={values.active} />
        <span>Active (the public page accepts submissions)</span>
      </label>
      <div class="actions">
        <button type="submit">{submitLabel}</button>
      </div>
    </PostForm>
  );
}

export interface FormsPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  forms: Form[];
  choices: EditorChoices;
  values: FormEditorValues;
  error?: string | undefined;
  notice?: string | undefined;
}

export function FormsPage({ user, accountName, timezone, forms, choices, values, error, notice }: FormsPageProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="forms" title="Forms" notice={notice}>
      <section class="card">
        <h1>Opt-in forms</h1>
        {forms.length === 0 ? (
          <p class="muted">No forms yet.</p>
        ) : (
          <table class="stack-table forms">
            <thead>
              <tr>
                <th>Name</th>
                <th>Public page</th>
                <th>Pending</th>
                <th>Confirmed</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {forms.map((f) => (
                <tr data-form-id={f.id}>
                  <td data-label="Name">
                    <a href={`/console/forms/${f.id}`}>{f.name}</a> {f.active ? null : <span class="badge">closed</span>}
                    {f.doubleOptIn ? <span class="badge">double opt-in</span> : null}
                    <LimitWarning form={f} timezone={timezone} />
                  </td>
                  <td class="url-cell" data-label="Public page">
                    <a href={`/f/${f.slug}`}>{f.url}</a>
                  </td>
                  <td data-label="Pending">{f.submissions.pending}</td>
                  <td data-label="Confirmed">{f.submissions.confirmed}</td>
                  <td data-label="Created">{formatTime(f.createdAt, timezone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="card">
        <h2>New form</h2>
        <ErrorNote message={error} />
        <FormEditor user={user} action="/console/forms" values={values} choices={choices} submitLabel="Create form" />
      </section>
    </ConsoleFrame>
  );
}

export interface FormDetailProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  form: Form;
  submissions: Submission[];
  choices: EditorChoices;
  values: FormEditorValues;
  error?: string | undefined;
  notice?: string | undefined;
}

export function FormDetailPage({ user, accountName, timezone, form, submissions, choices, values, error, notice }: FormDetailProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="forms" title={form.name} notice={notice}>
      <p class="small">
        <a href="/console/forms">← All forms</a>
      </p>
      <section class="card">
        <h1>{form.name}</h1>
        <LimitWarning form={form} timezone={timezone} detail />
        <p>
          Public page: <a href={`/f/${form.slug}`}>{form.url}</a>
        </p>
        {form.webhook ? (
          <p class="small">
            Webhook: <a href={`/console/webhooks/${form.webhook.id}`}>{form.webhook.url}</a>
          </p>
        ) : null}
      </section>
      <section class="card">
        <h2>Submissions</h2>
        {submissions.length === 0 ? (
          <p class="muted">No submissions yet.</p>
        ) : (
          <table class="stack-table submissions">
            <thead>
              <tr>
                <th>Submitted</th>
                <th>Number</th>
                <th>Data</th>
                <th>Opt-in</th>
                <th>Confirmation SMS</th>
              </tr>
            </thead>
            <tbody>
              {submissions.map((s) => (
                <tr data-submission-id={s.id}>
                  <td data-label="Submitted">{formatTime(s.submittedAt, timezone)}</td>
                  <td data-label="Number">
                    {s.contact.phone}
                    <br />
                    <span class="small muted">contact {s.contact.action}</span>
                  </td>
                  <td class="small" data-label="Data">
                    {[s.data.firstName, s.data.email, ...s.data.customFields.map((f) => `${f.label}: ${f.value}`)].filter(Boolean).join(' · ') || '—'}
                  </td>
                  <td data-label="Opt-in">
                    <span class={`badge ${s.status === 'CONFIRMED' ? 'status-approved' : 'status-pending'}`}>{s.status}</span>
                    {s.confirmedAt ? <p class="small muted">{formatTime(s.confirmedAt, timezone)}</p> : null}
                  </td>
                  <td class="small" data-label="Confirmation SMS">{s.confirmationSent ? 'sent' : (s.confirmationNote ?? 'not sent')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="card">
        <h2>Settings</h2>
        <ErrorNote message={error} />
        <FormEditor user={user} action={`/console/forms/${form.id}`} values={values} choices={choices} submitLabel="Save form" />
      </section>
      <section class="card">
        <h2>Delete</h2>
        <p class="muted small">Deletes the form and its submissions. Contacts it created stay.</p>
        <PostForm action={`/console/forms/${form.id}/delete`} csrf={user.csrfToken}>
          <button type="submit" class="danger small">
            Delete form
          </button>
        </PostForm>
      </section>
    </ConsoleFrame>
  );
}
