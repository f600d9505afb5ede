import type { Kysely, Migration } from 'kysely';

/**
 * The migrations are kept by the areas that own their tables (issue #32): each area's
 * `migrations/index.ts` exports its parts, by migration name, and the composition layer
 * (src/bootstrap/migrations.ts) merges them into the one list the migrator runs. The platform
 * imports no area, so it only knows the shapes and how parts are merged; the list is passed to
 * openDatabase / copySqliteToPostgres as a parameter.
 */

/** One area's share of a numbered migration: the statements on that area's tables. */
export interface MigrationPart {
  // Migrations take Kysely<any>: they describe past shapes, not the current Database type.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  up(db: Kysely<any>): Promise<void>;
}

/** An area's parts, by migration name (`'001_foundation'`): what `src/<area>/migrations/index.ts` exports. */
export type MigrationParts = Readonly<Record<string, MigrationPart>>;

/** The migrations the migrator runs, by the name recorded in the database (kysely_migration.name). */
export type Migrations = Readonly<Record<string, Migration>>;

/**
 * Merges the areas' parts into one Kysely migration per name. `order` is, per name in migration
 * order, the areas whose parts that migration runs, in the order they run; `parts` is each area's
 * `migrationParts`. Every listed part must exist and every existing part must be listed, so a part
 * is never silently left out or run twice. A composed migration runs its parts one after the other
 * on the same connection (inside the migrator's transaction on PostgreSQL), exactly as the single
 * file did before it was split.
 */
export function composeMigrations(order: Readonly<Record<string, readonly string[]>>, parts: Readonly<Record<string, MigrationParts>>): Migrations {
  const problems: string[] = [];
  const composed: Record<string, Migration> = {};
  for (const [name, areas] of Object.entries(order)) {
    if (new Set(areas).size !== areas.length) problems.push(`${name} lists an area twice (${areas.join(', ')})`);
    const steps: MigrationPart[] = [];
    for (const area of areas) {
      const part = parts[area]?.[name];
      if (part) steps.push(part);
      else problems.push(`${name}: ${area} has no part of it`);
    }
    composed[name] = {
      async up(db) {
        for (const step of steps) await step.up(db);
      },
    };
  }
  for (const [area, byName] of Object.entries(parts)) {
    for (const name of Object.keys(byName)) {
      if (!order[name]?.includes(area)) problems.push(`${name}: the part of ${area} is not in the order`);
    }
  }
  if (problems.length > 0) throw new Error(`The migration parts do not match their order: ${problems.join('; ')}`);
  return composed;
}
