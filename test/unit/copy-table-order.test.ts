import { describe, expect, it } from 'vitest';
import { foreignKeySafeOrder } from '../../src/platform/db/copy/table-order.js';

describe('foreignKeySafeOrder', () => {
  it('puts every table after the tables it references, ties by name', () => {
    const edges = [
      { child: 'messages', parent: 'jobs' },
      { child: 'messages', parent: 'accounts' },
      { child: 'jobs', parent: 'accounts' },
      { child: 'api_keys', parent: 'accounts' },
      { child: 'webhook_attempts', parent: 'webhook_deliveries' },
      { child: 'webhook_deliveries', parent: 'webhook_events' },
      { child: 'webhook_events', parent: 'accounts' },
    ];
    const tables = ['webhook_attempts', 'messages', 'webhook_deliveries', 'jobs', 'api_keys', 'webhook_events', 'accounts', 'settings'];
    const order = foreignKeySafeOrder(tables, edges);
    expect(order).toEqual(['accounts', 'api_keys', 'jobs', 'messages', 'settings', 'webhook_events', 'webhook_deliveries', 'webhook_attempts']);
    for (const { child, parent } of edges) expect(order.indexOf(parent), `${parent} before ${child}`).toBeLessThan(order.indexOf(child));
    // The same answer whatever order the catalog lists things in.
    expect(foreignKeySafeOrder([...tables].reverse(), [...edges].reverse())).toEqual(order);
  });

  it('ignores a table referencing itself and tables outside the copy', () => {
    expect(foreignKeySafeOrder(['b', 'a'], [{ child: 'a', parent: 'a' }, { child: 'b', parent: 'elsewhere' }])).toEqual(['a', 'b']);
  });

  it('refuses a cycle, naming the tables in it', () => {
    expect(() => foreignKeySafeOrder(['a', 'b', 'c', 'z'], [{ child: 'a', parent: 'b' }, { child: 'b', parent: 'a' }, { child: 'c', parent: 'a' }])).toThrow(/cycle between a, b, c/);
  });
});
