// Columns a table gained after its first schema, added to a file written by an older build when it is opened.
import type Database from 'better-sqlite3';

/** Adds to `table` each of `columns` it lacks. Call it inside an IMMEDIATE transaction: processes opening one file
 *  together then add each column once, the later ones finding it there. */
export function addMissingColumns(db: Database.Database, table: string, columns: ReadonlyArray<readonly [name: string, definition: string]>): void {
  const have = new Set(db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all().map((c) => c.name));
  for (const [name, definition] of columns) {
    if (!have.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${definition}`);
  }
}
