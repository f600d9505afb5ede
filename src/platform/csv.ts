/**
 * One CSV cell (RFC 4180), safe to open in a spreadsheet (OWASP "CSV injection"): a text starting with = + - @, a tab
 * or a carriage return (some spreadsheets skip those before reading a formula) gets a leading apostrophe, so it is
 * shown as text and never evaluated; a cell with a comma, quote or line break is quoted with its quotes doubled.
 * Numbers are written as they are. Every CSV export (consent record, approval history) writes its cells with it.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  let s = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
