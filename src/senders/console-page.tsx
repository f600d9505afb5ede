import type { Sendername } from './schemas.js';
import { CONSENT_LANGUAGES, SENDER_WORD_MAX_LENGTH, SENDER_WORDS_MAX, SENTENCE_MAX_WORDS, type SenderWords } from '../inbound/consent-words.js';
import { PostForm } from '../../preview-pages/layout.js';
import { ConsoleFrame, type ConsoleUser } from '../../preview-pages/console/frame.js';
import { formatTime } from '../../preview-pages/console/format.js';

/** What a person typed that was refused, shown again in its form with the problems. */
export interface ConsentWordsError {
  senderId: string;
  typed: Record<keyof SenderWords, string>;
  problems: string[];
}

export interface SendersPageProps {
  user: ConsoleUser;
  accountName: string;
  timezone: string;
  senders: readonly Sendername[];
  /** Each sender's own consent words, by sender id. */
  consentWords: ReadonlyMap<string, SenderWords>;
  error?: ConsentWordsError | undefined;
  notice?: string | undefined;
}

const LANGUAGE_NAMES: Readonly<Record<keyof typeof CONSENT_LANGUAGES, string>> = {
  en: 'English (US set)',
  de: 'German',
  fr: 'French',
  es: 'Spanish',
  it: 'Italian',
  nl: 'Dutch',
  da: 'Danish',
  sv: 'Swedish',
  no: 'Norwegian',
  fi: 'Finnish',
  pl: 'Polish',
  pt: 'Portuguese',
};

const KINDS: readonly [keyof SenderWords, string, string][] = [
  ['optOut', 'Opt-out words', 'The number is opted out and gets one confirmation.'],
  ['optIn', 'Re-subscribe words', 'An opted-out number is opted in again.'],
  ['help', 'Help words', 'Answered with the company’s details (at most 3 times a day per number).'],
];

/** The words every sender understands (src/inbound/consent-words.ts), per language. */
function ListedWords() {
  return (
    <details class="consent-words-listed">
      <summary>Words every sender understands, in {Object.keys(CONSENT_LANGUAGES).length} languages</summary>
      <div class="wide-table" tabindex={0} role="region" aria-label="Words every sender understands">
        <table>
          <thead>
            <tr>
              <th scope="col">Language</th>
              <th scope="col">Opt out</th>
              <th scope="col">Re-subscribe</th>
              <th scope="col">Help</th>
            </tr>
          </thead>
          <tbody>
            {(Object.keys(CONSENT_LANGUAGES) as (keyof typeof CONSENT_LANGUAGES)[]).map((lang) => {
              const l = CONSENT_LANGUAGES[lang];
              return (
                <tr>
                  <th scope="row">{LANGUAGE_NAMES[lang]}</th>
                  <td>{[...l.sentence, ...l.optOut].join(', ')}</td>
                  <td>{l.optIn.join(', ')}</td>
                  <td>{l.help.join(', ')}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function ConsentWordsForm({ sender, words, error, csrf }: { sender: Sendername; words: SenderWords; error: ConsentWordsError | undefined; csrf: string }) {
  const typed = error?.senderId === sender.id ? error.typed : null;
  const id = (kind: string) => `cw-${sender.id}-${kind}`;
  return (
    <section class="card stack consent-words" id={`consent-${sender.id}`} aria-labelledby={`consent-${sender.id}-title`}>
      <h2 id={`consent-${sender.id}-title`}>
        {sender.name} <span class="muted small">{sender.type}</span>
      </h2>
      <p>
        Trigger: <code>{sender.stopKeyword}</code> — unsubscribe chips of this sender send it, and it opts out like the words every
        sender understands.
      </p>
      {typed ? (
        <div class="error-list" role="alert">
          <p class="error">The words were not saved:</p>
          <ul>
            {error!.problems.map((p) => (
              <li>{p}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <PostForm action={`/console/senders/${encodeURIComponent(sender.id)}/consent-words`} csrf={csrf} class="stack">
        <div class="field-grid">
          {KINDS.map(([kind, label, hint]) => (
            <label for={id(kind)}>
              {label}
              <textarea id={id(kind)} name={kind} rows={3} maxlength={SENDER_WORDS_MAX * (SENDER_WORD_MAX_LENGTH + 2) * 2}>
                {typed ? typed[kind] : words[kind].join('\n')}
              </textarea>
              <span class="hint">{hint} One word or phrase per line.</span>
            </label>
          ))}
        </div>
        <div class="actions">
          <button type="submit">Save words of {sender.name}</button>
        </div>
      </PostForm>
    </section>
  );
}

/** Sender identities are approved by the operator (admin CLI); their consent words are the account's. */
export function SendersPage({ user, accountName, timezone, senders, consentWords, error, notice }: SendersPageProps) {
  return (
    <ConsoleFrame user={user} accountName={accountName} active="senders" title="Senders" notice={notice}>
      <section class="card">
        <h1>Senders</h1>
        <p class="muted">Sender names are registered and approved by the operator of this server. Only APPROVED senders can send.</p>
        {senders.length === 0 ? (
          <p class="muted">No senders yet.</p>
        ) : (
          <div class="wide-table" tabindex={0} role="region" aria-label="Senders">
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
          </div>
        )}
      </section>
      {senders.length > 0 ? (
        <section class="card stack" id="consent-words">
          <h2>What recipients can reply</h2>
          <p>
            A reply opts the number out when, ignoring case, accents, punctuation and blanks, it is the sender’s trigger, a
            word below in any of its languages, or a short sentence (at most {SENTENCE_MAX_WORDS} words) that only asks to stop,
            such as “please stop texting me” or “Stopp bitte”. Longer messages, negations (“don’t stop”) and anything about
            something else are ordinary replies. Every opt-out, re-subscription and help request is on the contact’s consent
            record.
          </p>
          <ListedWords />
          <p class="muted small">
            Each sender can add its own words below; they count as the whole reply only. A word cannot mean two things: a
            listed opt-out word cannot become a re-subscribe or help word. At most {SENDER_WORDS_MAX} per kind,{' '}
            {SENDER_WORD_MAX_LENGTH} characters each.
          </p>
        </section>
      ) : null}
      {senders.map((s) => (
        <ConsentWordsForm sender={s} words={consentWords.get(s.id) ?? { optOut: [], optIn: [], help: [] }} error={error} csrf={user.csrfToken} />
      ))}
    </ConsoleFrame>
  );
}
