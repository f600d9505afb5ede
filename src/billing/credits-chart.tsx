import type { DailyUsage } from './schemas.js';

/** Colours of the message statuses in the chart and its legend (presentation attributes: the CSP allows no inline style). */
const STATUS_COLOURS: ReadonlyArray<[string, string]> = [
  ['READ', '#1b5e20'],
  ['DELIVERED', '#43a047'],
  ['SENT', '#90caf9'],
  ['SENDING', '#ffb300'],
  ['SCHEDULED', '#b0bec5'],
  ['FAILED', '#c62828'],
  ['BLOCKED', '#6a1b9a'],
  ['REJECTED', '#8d6e63'],
  // A credential's chart counts messages when they were accepted (src/billing/budgets.ts), not by their status.
  ['ACCEPTED', '#3949ab'],
];
const SPENT_COLOUR = '#1a73e8';

const W = 760;
const LEFT = 56;
const RIGHT = 12;
const PANEL = 120;
const GAP = 44;

/** A round upper bound for an axis: 1, 2, 5 × 10^n. */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(n < 1 ? 3 : 2).replace(/0+$/, '').replace(/\.$/, ''));

/**
 * Credits spent per day (top) and outbound messages per day stacked by status (bottom), as one
 * server-rendered SVG: no script, every number also in the <title> of its bar for screen readers
 * and hover.
 */
export function CreditsChart({ days, messagesLabel = 'Messages per day, by status' }: { days: readonly DailyUsage[]; messagesLabel?: string }) {
  const n = Math.max(days.length, 1);
  const slot = (W - LEFT - RIGHT) / n;
  const bar = Math.max(2, slot * 0.7);
  const spentMax = niceMax(Math.max(0, ...days.map((d) => d.spent)));
  const msgMax = niceMax(Math.max(0, ...days.map((d) => Object.values(d.messages).reduce((s, x) => s + x, 0))));
  const top1 = 24;
  const top2 = top1 + PANEL + GAP;
  const height = top2 + PANEL + 48;
  const x = (i: number) => LEFT + i * slot + (slot - bar) / 2;
  const labelEvery = Math.ceil(n / 10);
  const used = new Set(days.flatMap((d) => Object.keys(d.messages)));
  const statuses = STATUS_COLOURS.filter(([s]) => used.has(s));
  return (
    <svg class="credits-chart" viewBox={`0 0 ${W} ${height}`} width="100%" role="img" aria-labelledby="credits-chart-title" xmlns="http://www.w3.org/2000/svg">
      <title id="credits-chart-title">Credits spent and messages by status per day, last {days.length} days (UTC)</title>
      <text x={LEFT} y={top1 - 8} font-size="13" font-weight="600" fill="#1b1f24">
        Credits spent per day
      </text>
      <text x={LEFT} y={top2 - 8} font-size="13" font-weight="600" fill="#1b1f24">
        {messagesLabel}
      </text>
      {[
        [top1, spentMax],
        [top2, msgMax],
      ].map(([top, max]) => (
        <g>
          {[0, 0.5, 1].map((f) => (
            <g>
              <line x1={LEFT} x2={W - RIGHT} y1={top! + PANEL * (1 - f)} y2={top! + PANEL * (1 - f)} stroke="#d9dee3" stroke-width="1" />
              <text x={LEFT - 6} y={top! + PANEL * (1 - f) + 4} font-size="11" text-anchor="end" fill="#5c6670">
                {fmt(max! * f)}
              </text>
            </g>
          ))}
        </g>
      ))}
      {days.map((d, i) => {
        const h = (Math.max(0, d.spent) / spentMax) * PANEL;
        return (
          <rect class="bar-spent" x={x(i)} y={top1 + PANEL - h} width={bar} height={h} fill={SPENT_COLOUR}>
            <title>
              {d.day}: {fmt(d.spent)} credits
            </title>
          </rect>
        );
      })}
      {days.map((d, i) => {
        let y = top2 + PANEL;
        return (
          <g class="bar-messages">
            {statuses.map(([status, colour]) => {
              const count = d.messages[status] ?? 0;
              if (count === 0) return null;
              const h = (count / msgMax) * PANEL;
              y -= h;
              return (
                <rect x={x(i)} y={y} width={bar} height={h} fill={colour}>
                  <title>
                    {d.day}: {count} {status}
                  </title>
                </rect>
              );
            })}
          </g>
        );
      })}
      {days.map((d, i) =>
        i % labelEvery === 0 || i === n - 1 ? (
          <text x={x(i) + bar / 2} y={top2 + PANEL + 16} font-size="11" text-anchor="middle" fill="#5c6670">
            {d.day.slice(5)}
          </text>
        ) : null,
      )}
      <g>
        {statuses.map(([status, colour], i) => (
          <g>
            <rect x={LEFT + i * 100} y={height - 18} width="12" height="12" fill={colour} />
            <text x={LEFT + i * 100 + 16} y={height - 8} font-size="11" fill="#1b1f24">
              {status}
            </text>
          </g>
        ))}
      </g>
    </svg>
  );
}
