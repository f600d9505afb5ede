import { randomBytes } from 'node:crypto';
import { describe, it } from 'vitest';
import { createTestSchema, postgresUnreachable, POSTGRES_ADMIN_URL, type TestSchema } from './postgres.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * Several instances of the server on ONE PostgreSQL database, in this process: each its own
 * context, pool, HTTP port, workers and caches, as if behind a load balancer. They share the
 * schema and the sealing key (an operator gives every instance the same SEALING_KEY).
 */
export interface Instances {
  all: TestServer[];
  schema: TestSchema;
  close(): Promise<void>;
}

export async function startInstances(count: number, env: Record<string, string> = {}): Promise<Instances> {
  const schema = await createTestSchema('inst');
  const shared = { DATABASE_URL: schema.url, DATABASE_POOL_MAX: '4', SEALING_KEY: randomBytes(32).toString('hex'), ...env };
  const all: TestServer[] = [];
  try {
    // One after the other: the first migrates and stores the keys, the others find them.
    for (let i = 0; i < count; i++) all.push(await startTestServer({ env: shared }));
  } catch (err) {
    await Promise.all(all.map((s) => s.close()));
    await schema.drop();
    throw err;
  }
  return {
    all,
    schema,
    async close() {
      await Promise.all(all.map((s) => s.close()));
      await schema.drop();
    },
  };
}

const unreachable = await postgresUnreachable();

/**
 * `describe` for tests that need a PostgreSQL server whatever TEST_DATABASE says: skipped when none
 * answers, unless REQUIRE_POSTGRES=1 (.ci/run), which makes that a failure.
 */
export function describePostgres(name: string, fn: () => void): void {
  if (unreachable !== null && process.env.REQUIRE_POSTGRES === '1') {
    describe(name, () => {
      it('needs PostgreSQL', () => {
        throw new Error(`PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL.replace(/\/\/[^@]*@/, '//…@')}: ${unreachable}`);
      });
    });
    return;
  }
  describe.skipIf(unreachable !== null)(name, fn);
}
