import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe-core's violations on the page, as rule, impact and the first targets. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, so the page's CSP (no script) does not apply.
  await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
}

/** The violations axe-core rates serious or critical. */
export const seriousViolations = (all: readonly AxeViolation[]): AxeViolation[] => all.filter((v) => v.impact === 'serious' || v.impact === 'critical');

/** The serious and critical violations, all of them logged first so a failing run shows what to fix. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const all = await axeViolations(page);
  if (all.length > 0) console.log(`axe: ${JSON.stringify(all)}`);
  return seriousViolations(all);
}
