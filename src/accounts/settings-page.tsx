import { PostForm } from '../../preview-pages/layout.js';
import { FORM_CONFIRMATION_LIMIT_DEFAULTS, FORM_CONFIRMATION_LIMIT_MAX, OPT_OUT_CONFIRMATION_DEFAULT, OPT_OUT_CONFIRMATION_MAX, type CompanyField, type FormConfirmationLimitName } from './schemas.js';
import { ConsoleFrame, type ConsoleUser } from '../../preview-pages/console/frame.js';
import { REPLY_DEFAULTS, REPLY_KINDS, REPLY_LANGUAGE_NAMES, REPLY_LANGUAGES, REPLY_TEXT_MAX, type ReplyKind, type ReplyLanguage } from './reply-texts.js';

export interface SettingsForm {
  name: string;
  timezone: string;
  approvalRequired: boolean;
  unsubscribeUrl: string;
  companyProfile: Partial<Record<CompanyField, string>>;
  /** As typed (text), so a refused value is shown again. */
  formConfirmationLimits: Record<FormConfirmationLimitName, string>;
  optOutConfirmation: boolean;
  /** Empty: the default text. */
  optOutConfirmationText: string;
  /** The language of replies to English words and the sender's own words (en, de, …). */
  consentReplyLanguage: string;
  /** The account's own reply texts as typed, by kind and language (empty: the default); the English confirmation is optOutConfirmationText. */
  replyTexts: Record<ReplyKind, Partial<Record<ReplyLanguage, string>>>;
  quietHours: boolean;
  /** Per-country window overrides as typed, one a line: `DE 09:00-20:00`, `FR 08:00-20:00 Mon-Sat`. */
  quietHoursWindows: string;
}

/** The name of a limit's input: formPerFormPerHour, … */
export const limitInput = (name: FormConfirmationLimitName): string => `form${name[0]!.toUpperCase()}${name.slice(1)}`;

/** The name of a reply text's input: reply_confirmation_de, reply_help_fr, … (the English confirmation is optOutConfirmationText). */
export const replyInput = (kind: ReplyKind, lang: ReplyLanguage): string => (kind === 'confirmation' && lang === 'en' ? 'optOutConfirmationText' : `reply_${kind}_${lang}`);

const REPLY_LABELS: Readonly<Record<ReplyKind, string>> = { confirmation: 'Opt-out confirmation', help: 'HELP answer' };

const LIMIT_LABELS: ReadonlyArray<[FormConfirmationLimitName, string]> = [
  ['perFormPerHour', 'Per form, per hour'],
  ['perFormPerDay', 'Per form, per day'],
  ['perAccountPerHour', 'All forms of the account, per hour'],
  ['perAccountPerDay', 'All forms of the account, per day'],
];

export interface SettingsPageProps {
  user: ConsoleUser;
  accountName: string;
  form: SettingsForm;
  timezones: string[];
  companyFields: ReadonlyArray<{ field: CompanyField; label: string }>;
  errors?: Array<{ field: string; message: string }> | undefined;
  notice?: string | undefined;
}

export function SettingsPage({ user, accountName, form, timezones, companyFields, errors = [], notice }: SettingsPageProps) {
  const zoneList = timezones.includes(form.timezone) ? timezones : [form.timezone, ...timezones];
  return (
    <ConsoleFrame user={user} accountName={accountName} active="settings" title="Settings" notice={notice}>
      <PostForm action="/console/settings" class="settings" csrf={user.csrfToken}>
        {errors.length > 0 ? (
          <div class="card error-list" role="alert">
            <p class="error">The settings were not saved:</p>
            <ul>
              {errors.map((e) => (
                <li>
                  {e.field ? <strong>{e.field}: </strong> : null}
                  {e.message}
                </li>
              ))}
            </ul>
          </div>
        ) : null}

        <section class="card stack">
          <h1>Settings</h1>
          <label>
            Account name
            <input name="name" required maxlength={200} value={form.name} />
          </label>
          <label>
            Time zone
            <select name="timezone">
              {zoneList.map((z) => (
                <option value={z} selected={z === form.timezone}>
                  {z}
                </option>
              ))}
            </select>
            <span class="hint">Default for scheduled sends and how times are shown here.</span>
          </label>
          <label class="check">
            <input type="checkbox" name="approvalRequired" value="on" checked={form.approvalRequired} />
            <span>
              <strong>Approval required</strong> — a person approves every preview before it can be sent. Assistants
              (connected apps, and API keys marked “sends need approval”) always need a person’s approval, whatever this
              says; turning it off lets only the other API keys send a preview without one.
            </span>
          </label>
          <label>
            Custom unsubscribe URL
            <input name="unsubscribeUrl" type="url" maxlength={2000} placeholder="https://example.com/unsubscribe" value={form.unsubscribeUrl} />
            <span class="hint">Leave empty to use this server's own unsubscribe page.</span>
          </label>
        </section>

        <section class="card">
          <h2>Company profile</h2>
          <p class="muted small">Used by the company merge fields in messages, e.g. {'{{company_name}}'}.</p>
          <div class="field-grid">
            {companyFields.map(({ field, label }) => (
              <label>
                {label}
                <input name={`profile_${field}`} maxlength={500} value={form.companyProfile[field] ?? ''} />
              </label>
            ))}
          </div>
        </section>

        <section class="card">
          <h2>Opt-in form confirmations</h2>
          <p class="muted small">
            A double opt-in form texts a confirmation link to whatever number a visitor types in, and nobody approves these
            messages. These caps limit how many go out (rolling hour and 24 hours). A visitor held back by a cap is asked to try
            again later; the form shows a warning in the console. 0 stops confirmation messages.
          </p>
          <div class="field-grid">
            {LIMIT_LABELS.map(([name, label]) => (
              <label>
                {label}
                <input
                  name={limitInput(name)}
                  type="number"
                  inputmode="numeric"
                  min={0}
                  max={name.endsWith('PerHour') ? FORM_CONFIRMATION_LIMIT_MAX.hour : FORM_CONFIRMATION_LIMIT_MAX.day}
                  step={1}
                  value={form.formConfirmationLimits[name]}
                />
                <span class="hint">default {FORM_CONFIRMATION_LIMIT_DEFAULTS[name]}</span>
              </label>
            ))}
          </div>
        </section>

        <section class="card">
          <h2>Opt-out confirmation</h2>
          <p class="muted small">
            When a person opts out by replying a stop word (STOP, the sender's keyword, or the equivalent words of twelve
            languages) or by tapping an unsubscribe chip, one message confirms it, through the same sender. It is sent once,
            not again when the person repeats STOP, and it is free. {'{{company_name}}'} is replaced by the company name.
          </p>
          <label class="check">
            <input type="checkbox" name="optOutConfirmation" value="on" checked={form.optOutConfirmation} />
            <span>
              <strong>Confirm opt-outs</strong> — send one confirmation message when a number opts out.
            </span>
          </label>
          <label>
            Confirmation text (English)
            <textarea name="optOutConfirmationText" maxlength={OPT_OUT_CONFIRMATION_MAX} rows={2} placeholder={OPT_OUT_CONFIRMATION_DEFAULT}>{form.optOutConfirmationText}</textarea>
            <span class="hint">Leave empty for the default: {OPT_OUT_CONFIRMATION_DEFAULT}</span>
          </label>
        </section>

        <section class="card stack" id="consent-replies">
          <h2>Replies in the person's language</h2>
          <p class="muted small">
            The opt-out confirmation and the answer to HELP are written in the language of the word the person sent: ARRÊT gets
            the French confirmation, HILFE the German answer. A word of two languages (STOPPEN, PARAR) takes the language of the
            person's country. English words such as STOP, and the sender's own words, get the language chosen here. Each
            language has a default (shown greyed in its box); write your own to replace it. In your text{' '}
            {'{{company_name}}'} is the company name, {'{{company_contacts}}'} its phone, e-mail and website, and{' '}
            {'{{stop_keyword}}'} the sender's opt-out keyword.
          </p>
          <label>
            Language of replies to STOP, HELP and the sender's own words
            <select name="consentReplyLanguage">
              {REPLY_LANGUAGES.map((l) => (
                <option value={l} selected={l === form.consentReplyLanguage}>
                  {REPLY_LANGUAGE_NAMES[l]}
                </option>
              ))}
            </select>
          </label>
          {REPLY_LANGUAGES.map((lang) => {
            const own = REPLY_KINDS.some((k) => (k === 'confirmation' && lang === 'en' ? form.optOutConfirmationText : form.replyTexts[k][lang]));
            return (
              <details class="reply-texts" open={own} data-lang={lang}>
                <summary>
                  {REPLY_LANGUAGE_NAMES[lang]}
                  {own ? ' — your own text' : ''}
                </summary>
                <div class="field-grid">
                  {REPLY_KINDS.map((kind) =>
                    kind === 'confirmation' && lang === 'en' ? (
                      <p class="muted small">The English confirmation is the confirmation text above.</p>
                    ) : (
                      <label>
                        {REPLY_LABELS[kind]} ({REPLY_LANGUAGE_NAMES[lang]})
                        <textarea name={replyInput(kind, lang)} lang={lang} maxlength={REPLY_TEXT_MAX} rows={3} placeholder={kind === 'confirmation' ? REPLY_DEFAULTS[lang].confirmation : REPLY_DEFAULTS[lang].help}>
                          {form.replyTexts[kind][lang] ?? ''}
                        </textarea>
                      </label>
                    ),
                  )}
                </div>
              </details>
            );
          })}
        </section>

        <section class="card" id="quiet-hours">
          <h2>Quiet hours</h2>
          <p class="muted small">
            Keeps marketing messages out of the night in each recipient's local time. When a send, batch or scheduled send
            would reach someone outside their country's sending window, that person's message waits until the window next
            opens (correct across daylight saving time) and then goes out — it is never dropped. The others go out as
            planned. Previews say how many recipients wait and until when, before you approve. Off by default.
          </p>
          <label class="check">
            <input type="checkbox" name="quietHours" value="on" checked={form.quietHours} />
            <span>
              <strong>Quiet hours</strong> — defer marketing messages to the recipient's sending window.
            </span>
          </label>
          <p class="small">Default windows, in the recipient's local time:</p>
          <ul class="small" data-testid="quiet-hours-defaults">
            <li>Every country: 08:00–21:00, every day.</li>
            <li>United States: 08:00–21:00 (federal rule); numbers with a Florida or Oklahoma area code 08:00–20:00 (state law).</li>
            <li>France: 08:00–20:00, Monday to Saturday; nothing on Sundays. (Public holidays are not taken into account: add an override or schedule around them.)</li>
          </ul>
          <p class="muted small">
            The local time comes from the contact's custom field tagged <code>timezone</code> or <code>time_zone</code> when it
            holds a time zone name such as Europe/Berlin, otherwise from the number: for US and Canadian numbers their area
            code's time zone (a Los Angeles number is on Pacific time; an area code split between two zones waits until both
            are inside the window), for others their country. Where a country has several time zones and the number does not
            say which (a toll-free number), the message waits until it is inside the window in all of them. Sends marked <code>transactional: true</code> (one-time codes,
            replies inside an open conversation) are exempt and go out at once.
          </p>
          <label>
            Your own windows
            <textarea name="quietHoursWindows" rows={3} placeholder={'DE 09:00-20:00\nFR 08:00-20:00 Mon-Sat'}>{form.quietHoursWindows}</textarea>
            <span class="hint">
              One country a line: its two-letter code, the window, and optionally the days (Mon-Fri, Mon,Wed,Sat). It replaces
              that country's default; a US state's stricter hours still apply. Leave empty for the defaults.
            </span>
          </label>
        </section>

        <div class="actions">
          <button type="submit">Save settings</button>
        </div>
      </PostForm>
    </ConsoleFrame>
  );
}
