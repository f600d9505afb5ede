import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/platform/paths.js';

/**
 * Nothing outside src/billing/ writes a balance (issue #18). Every .ts/.tsx file of src/, tools/
 * and oauth/ is parsed; a write is a Kysely `updateTable('accounts')` or `insertInto('accounts')`
 * whose `.set(…)` / `.values(…)` names credits_milli (directly, or through a local variable it
 * passes), or raw SQL that updates or inserts credits_milli of accounts.
 */
const ROOTS = ['src', 'tools', 'oauth'];
const ALLOWED = [path.join('src', 'billing') + path.sep];
/** Migrations create and seed tables, table types describe them: neither runs at request time. */
const SKIPPED = [path.join('src', 'platform', 'db', 'migrations') + path.sep, path.join('src', 'platform', 'db', 'tables') + path.sep];

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The table a Kysely chain starts from, when it is updateTable/insertInto with a literal name. */
function tableOf(expr: ts.Expression): { verb: string; table: string } | null {
  let e: ts.Expression = expr;
  for (;;) {
    if (ts.isCallExpression(e)) {
      const callee = e.expression;
      if (ts.isPropertyAccessExpression(callee) && ['updateTable', 'insertInto'].includes(callee.name.text) && e.arguments[0] && ts.isStringLiteralLike(e.arguments[0])) {
        return { verb: callee.name.text, table: e.arguments[0].text };
      }
      e = callee;
    } else if (ts.isPropertyAccessExpression(e) || ts.isNonNullExpression(e) || ts.isParenthesizedExpression(e) || ts.isAwaitExpression(e)) {
      e = e.expression;
    } else return null;
  }
}

export function balanceWrites(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const where = (n: ts.Node) => `${fileName}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  // Every initializer of a name in the file (a name may be declared in several functions): conservative.
  const declared = new Map<string, string>();
  const collect = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer) declared.set(n.name.text, `${declared.get(n.name.text) ?? ''}\n${n.initializer.getText(sf)}`);
    ts.forEachChild(n, collect);
  };
  collect(sf);
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && ['set', 'values'].includes(n.expression.name.text)) {
      const t = tableOf(n.expression.expression);
      if (t?.table === 'accounts') {
        const arg = n.arguments[0];
        const argText = arg ? (ts.isIdentifier(arg) ? (declared.get(arg.text) ?? '') : arg.getText(sf)) : '';
        if (/\bcredits_milli\b/.test(argText)) found.push(`${where(n)} ${t.verb}('accounts').${n.expression.name.text}(… credits_milli …)`);
      }
    }
    if (ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n) || ts.isStringLiteral(n)) {
      const s = n.getText(sf);
      if (/update\s+"?accounts"?\s+set[\s\S]*credits_milli|insert\s+into\s+"?accounts"?[\s\S]*credits_milli/i.test(s)) found.push(`${where(n)} raw SQL writes accounts.credits_milli`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('only src/billing/ writes balances', () => {
  it('finds writes where they are (the scanner is not blind)', () => {
    expect(balanceWrites('x.ts', "await tx.updateTable('accounts').set((eb) => ({ credits_milli: eb('credits_milli', '+', 5) })).where('id', '=', a).execute();")).toHaveLength(1);
    expect(balanceWrites('x.ts', "await this.db.updateTable('accounts').set({ credits_milli: 5 }).where('id', '=', id).executeTakeFirst();")).toHaveLength(1);
    expect(balanceWrites('x.ts', "const row = { id, credits_milli: 5 }; await tx.insertInto('accounts').values(row).execute(); function f() { const row = 1; }")).toHaveLength(1);
    expect(balanceWrites('x.ts', 'await sql`UPDATE accounts SET credits_milli = credits_milli - ${n}`.execute(db);')).toHaveLength(1);
    // Reads, other tables and other columns are not writes.
    expect(balanceWrites('x.ts', "await db.selectFrom('accounts').select('credits_milli').execute(); await tx.insertInto('jobs').values({ ...job, credits_milli: 5 }).execute(); await db.updateTable('accounts').set({ name }).execute();")).toEqual([]);
    // And the real writer is seen: the ledger moves balances.
    const ledger = path.join(PROJECT_ROOT, 'src', 'billing', 'ledger.ts');
    expect(balanceWrites(ledger, fs.readFileSync(ledger, 'utf8')).length).toBeGreaterThanOrEqual(2);
  });

  it('no file outside src/billing/ writes accounts.credits_milli', () => {
    const files = ROOTS.flatMap((r) => filesUnder(path.join(PROJECT_ROOT, r)));
    expect(files.length).toBeGreaterThan(100);
    const offenders: string[] = [];
    for (const f of files) {
      const rel = path.relative(PROJECT_ROOT, f);
      if (ALLOWED.some((a) => rel.startsWith(a)) || SKIPPED.some((s) => rel.startsWith(s))) continue;
      offenders.push(...balanceWrites(rel, fs.readFileSync(f, 'utf8')));
    }
    expect(offenders).toEqual([]);
  });
});
