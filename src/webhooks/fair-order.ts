/**
 * The order in which free delivery slots go to endpoints: round-robin over accounts, and inside an
 * account round-robin over its endpoints, one delivery per turn. An account with twenty endpoints
 * gets no more turns than an account with one, and a backlog of one endpoint never queues ahead of
 * another endpoint's first delivery. Pure apart from the two cursors it keeps between rounds.
 */

export interface DueGroup {
  accountId: string;
  endpointId: string;
  /** The endpoint's due deliveries, oldest first, already cut to what its cap allows now. */
  deliveryIds: readonly string[];
}

export interface Pick {
  accountId: string;
  endpointId: string;
  deliveryId: string;
}

/** Sorted `keys`, rotated so that the first key after `after` comes first. */
function rotated(keys: string[], after: string | undefined): string[] {
  keys.sort();
  if (after === undefined) return keys;
  const i = keys.findIndex((k) => k > after);
  return i <= 0 ? keys : [...keys.slice(i), ...keys.slice(0, i)];
}

/** Interleaves lists turn by turn: a[0], b[0], c[0], a[1], b[1], … */
function interleave<T>(lists: readonly (readonly T[])[]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
  return out;
}

export class RoundRobin {
  private lastAccount: string | undefined;
  private readonly lastEndpoint = new Map<string, string>();

  /** Up to `limit` deliveries in fair order; the next call starts after the last account and endpoint served. */
  pick(groups: readonly DueGroup[], limit: number): Pick[] {
    if (limit <= 0 || groups.length === 0) return [];
    const byAccount = new Map<string, DueGroup[]>();
    for (const g of groups) {
      if (g.deliveryIds.length === 0) continue;
      const list = byAccount.get(g.accountId) ?? [];
      list.push(g);
      byAccount.set(g.accountId, list);
    }
    const perAccount = rotated([...byAccount.keys()], this.lastAccount).map((accountId) => {
      const endpoints = byAccount.get(accountId)!;
      const order = rotated(endpoints.map((e) => e.endpointId), this.lastEndpoint.get(accountId));
      const byId = new Map(endpoints.map((e) => [e.endpointId, e]));
      return interleave(order.map((id) => byId.get(id)!.deliveryIds.map((deliveryId): Pick => ({ accountId, endpointId: id, deliveryId }))));
    });
    const picks = interleave(perAccount).slice(0, limit);
    for (const p of picks) {
      this.lastAccount = p.accountId;
      this.lastEndpoint.set(p.accountId, p.endpointId);
    }
    return picks;
  }
}
