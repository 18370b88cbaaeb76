/**
 * SQL written as text names its tables through the drizzle schema (`from ${leads} l`), never as
 * words (`from leads l`): then renaming a table is a compile error, not a runtime 500. This scans
 * every sql`…` template under src/ for a schema table's name after from/join/into/update/table,
 * so the pattern cannot creep back (docs/notes/refs.md).
 */
import { getTableName, is } from 'drizzle-orm';
import { getViewConfig, PgTable, PgView } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import * as schema from '../src/db/schema';
import { literalTableNames, sqlTemplates } from './helpers/sql-text';

const sources = import.meta.glob<string>('../src/**/*.ts', { query: '?raw', import: 'default', eager: true });

const tableNames = new Set<string>();
for (const value of Object.values(schema)) {
  if (is(value, PgTable)) tableNames.add(getTableName(value));
  else if (is(value, PgView)) tableNames.add(getViewConfig(value).name);
}

describe('SQL text', () => {
  it('finds the templates it is meant to police', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    expect(tableNames.has('leads') && tableNames.has('deal_stage_history')).toBe(true);
    // Source text under test: the `${…}` are meant literally.
    const sample = [
      '// a comment: select from leads',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
      'const a = sql`select 1 from leads l join ${deals} d on true`;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
      'const b = sql<number>`(select count(*) from ${leads} where x in ${sql`select id from "stages"`})`;',
      "const c = 'insert into leads';",
      'const d = `update leads set x = 1`;',
    ].join('\n');
    const found = sqlTemplates(sample).flatMap((template) => literalTableNames(template.text, tableNames));
    expect(found.sort()).toEqual(['from leads', 'from stages']);
  });

  it('names no schema table as a word inside sql`…` anywhere in src/', () => {
    const offences: string[] = [];
    for (const [file, source] of Object.entries(sources)) {
      // The schema defines the tables; migrations (drizzle/) are SQL files, outside src/.
      if (file.startsWith('../src/db/schema/')) continue;
      for (const template of sqlTemplates(source)) {
        for (const hit of literalTableNames(template.text, tableNames)) {
          offences.push(`${file.slice(3)}:${template.line}: "${hit}" — interpolate the table: \${table}`);
        }
      }
    }
    expect(offences, offences.join('\n')).toEqual([]);
  });
});
