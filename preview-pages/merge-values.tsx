import type { TextRisk } from '../src/content/text-risks.js';
import { plural } from './preview-mockup.js';

/** One distinct merged value as the page lists it. */
export interface MergeValueRow {
  field: string;
  index: number;
  /** With bidi controls and invisible characters made visible (⟦U+202E⟧). */
  shown: string;
  count: number;
  risks: TextRisk[];
  /** The first recipients that get it (+E.164). */
  recipients: string[];
}

export interface MergeValuesProps {
  total: number;
  stats: { name: string; distinct: number; flaggedValues: number; flaggedRecipients: number }[];
  rows: MergeValueRow[];
  matched: number;
  page: number;
  pageSize: number;
  query: { q: string; field: string; flagged: boolean };
  /** The flagged value that ranks first across fields (the page's first screen names it), or null. */
  worst?: MergeValueRow | null | undefined;
  /** Recipients of one value (?field=…&v=…), paged. */
  recipientsOf: { field: string; shown: string; phones: string[]; total: number; page: number; pageSize: number; index: number } | null;
}

/** Short names of the risks, for the table and the page's first screen. */
export const RISK_LABEL: Record<string, string> = {
  lookalike_host: 'look-alike link',
  contains_link: 'link',
  contains_phone: 'phone number',
  contains_email: 'e-mail address',
  bidi_control: 'text-direction control',
  invisible_character: 'invisible characters',
  mixed_scripts: 'mixed scripts',
  unusual_length: 'unusually long',
  written_by_assistant: 'written by an assistant',
};

/** A query string for this page with some parameters changed (undefined or '' removes one). */
function href(base: MergeValuesProps['query'], over: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  const all: Record<string, string | number | undefined> = { q: base.q, field: base.field, flagged: base.flagged ? '1' : undefined, ...over };
  for (const [k, v] of Object.entries(all)) if (v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return `?${s}#values`;
}

/**
 * Every value the preview merges, per field, riskiest first (DESIGN §6, issue #27): the person sees
 * what differs between recipients without guessing a recipient number. Paged and searchable with
 * plain GET forms and links (the page has no script); a recipient's whole message opens in the
 * phone above with ?phone=.
 */
export function MergeValuesCard(p: MergeValuesProps) {
  const flaggedAll = p.stats.reduce((s, f) => s + f.flaggedValues, 0);
  const pages = Math.max(1, Math.ceil(p.matched / p.pageSize));
  return (
    <section class="card merge-values" id="values" data-testid="merge-values">
      <h2>What differs between recipients</h2>
      <p class="muted small">
        {`Every value the merge fields take across all ${plural(p.total, 'recipient')}, with how many get each. Flagged values come first.`}
      </p>
      <ul class="merge-stats">
        {p.stats.map((f) => (
          <li data-testid="merge-field">
            <code>{`{{${f.name}}}`}</code>
            {`: ${plural(f.distinct, 'different value')}`}
            {f.flaggedValues > 0 ? <strong class="flag-text">{` · ${plural(f.flaggedValues, 'flagged value')} (${plural(f.flaggedRecipients, 'recipient')})`}</strong> : ''}
          </li>
        ))}
      </ul>
      <form method="get" action="#values" class="merge-search" role="search">
        <label>
          Value contains
          <input name="q" value={p.query.q} maxlength={200} type="search" />
        </label>
        <label>
          Field
          <select name="field">
            <option value="">All fields</option>
            {p.stats.map((f) => (
              <option value={f.name} selected={p.query.field === f.name}>
                {f.name}
              </option>
            ))}
          </select>
        </label>
        <label class="inline">
          <input type="checkbox" name="flagged" value="1" checked={p.query.flagged} /> Flagged only
        </label>
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {flaggedAll > 0 && !p.query.flagged ? (
        <p>
          <a href={href(p.query, { flagged: '1', page: undefined })} data-testid="flagged-link">
            {`List only the ${plural(flaggedAll, 'flagged value')} and who gets them`}
          </a>
        </p>
      ) : null}
      {p.recipientsOf ? <RecipientsOf p={p} /> : null}
      {p.rows.length === 0 ? (
        <p class="muted">No value matches.</p>
      ) : (
        <div class="table-scroll">
          <table class="merge-table" data-testid="merge-table">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Value</th>
                <th scope="col">Recipients</th>
                <th scope="col">Flagged because</th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map((r) => (
                <tr class={r.risks.length > 0 ? 'flagged-row' : undefined} data-testid="merge-row">
                  <td class="merge-field">
                    <code>{r.field}</code>
                  </td>
                  <td class="merge-value" dir="ltr">
                    {r.shown === '' ? <span class="muted">(empty)</span> : <bdi>{r.shown}</bdi>}
                  </td>
                  <td class="merge-count">
                    <a href={href(p.query, { v: r.index, field: r.field, rp: undefined })}>{plural(r.count, 'recipient')}</a>
                    {r.recipients.length > 0 ? (
                      <span class="small">
                        {' — '}
                        {r.recipients.map((ph, i) => (
                          <>
                            {i > 0 ? ', ' : ''}
                            <a href={`?phone=${encodeURIComponent(ph)}#mockup`}>{ph}</a>
                          </>
                        ))}
                        {r.count > r.recipients.length ? ' …' : ''}
                      </span>
                    ) : null}
                  </td>
                  <td class="merge-risks">
                    {r.risks.length === 0 ? (
                      <span class="muted">—</span>
                    ) : (
                      <ul class="risk-list">
                        {r.risks.map((k) => (
                          <li data-risk={k.code}>
                            <strong>{RISK_LABEL[k.code] ?? k.code}</strong>: {k.message}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 ? (
        <nav class="pager" aria-label="Pages of values">
          {p.page > 1 ? <a href={href(p.query, { page: p.page - 1 })}>Previous</a> : null}
          <span>{`Page ${p.page} of ${pages} (${plural(p.matched, 'value')})`}</span>
          {p.page < pages ? <a href={href(p.query, { page: p.page + 1 })}>Next</a> : null}
        </nav>
      ) : null}
      <form method="get" action="#mockup" class="merge-search">
        <label>
          Show the message of recipient
          <input name="phone" type="tel" maxlength={24} placeholder="+4915112345678" />
        </label>
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
    </section>
  );
}

/** Everyone who gets one value, paged: the full list of flagged recipients is reachable from here. */
function RecipientsOf({ p }: { p: MergeValuesProps }) {
  const r = p.recipientsOf!;
  const pages = Math.max(1, Math.ceil(r.total / r.pageSize));
  return (
    <div class="recipients-of" data-testid="recipients-of">
      <h3>
        <code>{r.field}</code> = <bdi>{r.shown === '' ? '(empty)' : r.shown}</bdi>
        {`: ${plural(r.total, 'recipient')}`}
      </h3>
      <ul class="phone-list">
        {r.phones.map((ph) => (
          <li>
            <a href={`?phone=${encodeURIComponent(ph)}#mockup`}>{ph}</a>
          </li>
        ))}
      </ul>
      {pages > 1 ? (
        <nav class="pager" aria-label="Pages of recipients">
          {r.page > 1 ? <a href={href(p.query, { field: r.field, v: r.index, rp: r.page - 1 })}>Previous</a> : null}
          <span>{`Page ${r.page} of ${pages}`}</span>
          {r.page < pages ? <a href={href(p.query, { field: r.field, v: r.index, rp: r.page + 1 })}>Next</a> : null}
        </nav>
      ) : null}
    </div>
  );
}

/** What the REST/MCP preview result carries per field (previews/merge-report.ts MergeValuesSummary). */
export interface MergeValuesSummaryProps {
  recipients: number;
  fields: { name: string; distinct: number; flaggedValues: number; values: { value: string; recipients: number; risks: string[] }[]; more: number }[];
}

/**
 * The in-chat view's short form of the values card: per field the first values, riskiest first, and
 * how many more the approval page lists. Values arrive with hidden characters already made visible.
 */
export function MergeValuesSummaryCard({ summary }: { summary: MergeValuesSummaryProps }) {
  return (
    <section class="card merge-values" data-testid="app-merge-values">
      <h2>What differs between recipients</h2>
      {summary.fields.map((f) => (
        <div class="merge-field-summary">
          <h3>
            <code>{`{{${f.name}}}`}</code>
            {`: ${plural(f.distinct, 'different value')}`}
            {f.flaggedValues > 0 ? <strong class="flag-text">{` · ${plural(f.flaggedValues, 'flagged')}`}</strong> : ''}
          </h3>
          <ul class="merge-summary-list">
            {f.values.map((v) => (
              <li class={v.risks.length > 0 ? 'flagged-row' : undefined}>
                <bdi>{v.value === '' ? '(empty)' : v.value}</bdi>
                {` — ${plural(v.recipients, 'recipient')}`}
                {v.risks.length > 0 ? <strong class="flag-text">{` · ${v.risks.map((k) => RISK_LABEL[k] ?? k).join(', ')}`}</strong> : ''}
              </li>
            ))}
            {f.more > 0 ? <li class="muted">{`and ${plural(f.more, 'more value')} on the approval page`}</li> : null}
          </ul>
        </div>
      ))}
    </section>
  );
}
