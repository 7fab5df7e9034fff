import { newId } from '../new-id.js';
import type { Db } from './db.js';
import { migrations } from './migrations.js';

/**
 * Applies pending migrations at start, each in its own transaction. The PostgreSQL store runs this under
 * an advisory lock (`withMigrationLock`) so that several processes starting at once apply each
 * migration exactly once: the second one in waits, then finds them all recorded in schema_migrations.
 */
export async function migrate(db: Db): Promise<void> {
  if (db.withMigrationLock) return db.withMigrationLock(() => applyMigrations(db));
  return applyMigrations(db);
}

async function applyMigrations(db: Db): Promise<void> {
  await db.run(
    `CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  );
  await db.run(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const done = new Set((await db.all<{ id: number }>(`SELECT id FROM schema_migrations`)).map((r) => Number(r.id)));
  for (const m of migrations) {
    if (done.has(m.id)) continue;
    const statements = Array.isArray(m.sql) ? m.sql : m.sql[db.dialect];
    const apply = () =>
      db.transaction(async (tx) => {
        for (const statement of statements) await tx.run(statement);
        if (m.run) await m.run(tx, db.dialect);
        if (m.foreignKeysOff && db.dialect === 'sqlite') {
          const dangling = await tx.all(`PRAGMA foreign_key_check`);
          if (dangling.length > 0)
            throw new Error(
              `migration ${m.id} would leave ${dangling.length} dangling reference(s): ${JSON.stringify(dangling.slice(0, 5))}`,
            );
        }
        await tx.run(`INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)`, [
          m.id,
          m.name,
          new Date().toISOString(),
        ]);
      });
    await (m.foreignKeysOff && db.withoutForeignKeys ? db.withoutForeignKeys(apply) : apply());
  }
  await db.run(`INSERT INTO meta (key, value) VALUES ('organization_id', ?) ON CONFLICT (key) DO NOTHING`, [newId()]);
}
