import { AppError } from '../../errors.js';

/** A foreign key between two tables: `child` has a column referencing a row of `parent`. */
export interface ForeignKeyEdge {
  child: string;
  parent: string;
}

/**
 * The tables in an order where every table comes after the tables it references, so rows can be
 * inserted table by table with the foreign keys checked as they go. Ties are broken by name, so the
 * order (and the progress a person watches) is the same on every run. A table referencing itself
 * does not constrain the order; a cycle between tables cannot be copied table by table and throws.
 */
export function foreignKeySafeOrder(tables: readonly string[], edges: readonly ForeignKeyEdge[]): string[] {
  const known = new Set(tables);
  const parents = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  for (const { child, parent } of edges) {
    if (child === parent || !known.has(child) || !known.has(parent)) continue;
    parents.get(child)!.add(parent);
  }
  const order: string[] = [];
  const placed = new Set<string>();
  while (order.length < tables.length) {
    const ready = tables.filter((t) => !placed.has(t) && [...parents.get(t)!].every((p) => placed.has(p))).sort();
    if (ready.length === 0) {
      const stuck = tables.filter((t) => !placed.has(t)).sort();
      throw new AppError('INTERNAL', `Foreign keys form a cycle between ${stuck.join(', ')}: these tables cannot be copied one after another`);
    }
    // One at a time, smallest name first: a deterministic order rather than waves.
    order.push(ready[0]!);
    placed.add(ready[0]!);
  }
  return order;
}
