/**
 * Reads the text of drizzle `sql` tagged templates out of TypeScript source, so a test can refuse
 * table names written as words inside SQL text (test/sql-table-names.test.ts). A small lexer, not
 * a parser: it knows strings, comments, templates and `${…}` nesting, which is all it takes to
 * tell a template's literal text from its interpolations and from prose in comments.
 */

export interface SqlText {
  /** The template's literal text, each `${…}` replaced by `?`. */
  text: string;
  /** 1-based line of the template's opening backtick. */
  line: number;
}

const identChar = /[A-Za-z0-9_$]/;

/** Every `sql\`…\`` and `sql<T>\`…\`` template in `source`, nested ones included. */
export function sqlTemplates(source: string): SqlText[] {
  const found: SqlText[] = [];
  let i = 0;

  const lineAt = (index: number) => source.slice(0, index).split('\n').length;

  function skipString(quote: string): void {
    i++;
    while (i < source.length && source[i] !== quote) {
      if (source[i] === '\\') i++;
      i++;
    }
    i++;
  }

  function skipComment(): boolean {
    if (source.startsWith('//', i)) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
      return true;
    }
    if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 2;
      return true;
    }
    return false;
  }

  /** At a backtick: reads the template through its closing backtick, recording it when `isSql`. */
  function readTemplate(isSql: boolean): void {
    const start = i;
    let text = '';
    i++;
    while (i < source.length && source[i] !== '`') {
      if (source[i] === '\\') {
        text += source.slice(i, i + 2);
        i += 2;
      } else if (source.startsWith('${', i)) {
        i += 2;
        readCode('}');
        i++;
        text += '?';
      } else {
        text += source[i];
        i++;
      }
    }
    i++;
    if (isSql) found.push({ text, line: lineAt(start) });
  }

  /** Reads code until the unmatched `close` character (or the end), leaving `i` on it. */
  function readCode(close: string | null): void {
    let depth = 0;
    while (i < source.length) {
      const c = source[i];
      if (skipComment()) continue;
      if (c === "'" || c === '"') {
        skipString(c);
      } else if (c === '`') {
        readTemplate(isSqlTag(i));
      } else if (c === '{') {
        depth++;
        i++;
      } else if (c === '}') {
        if (depth === 0 && close === '}') return;
        depth--;
        i++;
      } else {
        i++;
      }
    }
  }

  /** Whether the backtick at `at` closes a `sql` or `sql<…>` tag. */
  function isSqlTag(at: number): boolean {
    let j = at - 1;
    if (source[j] === '>') {
      let depth = 0;
      for (; j >= 0; j--) {
        if (source[j] === '>') depth++;
        else if (source[j] === '<' && --depth === 0) break;
      }
      j--;
    }
    return source.slice(j - 2, j + 1) === 'sql' && !identChar.test(source[j - 3] ?? '') && source[j - 3] !== '.';
  }

  readCode(null);
  return found;
}

/**
 * Table names written as words after a keyword that names a table (`from`, `join`, `into`,
 * `update`, `table`), e.g. `from leads l` or `join "deals" d`.
 */
export function literalTableNames(text: string, tableNames: ReadonlySet<string>): string[] {
  const hits: string[] = [];
  const pattern = /\b(from|join|into|update|table)\s+(?:only\s+)?"?([A-Za-z_][A-Za-z0-9_]*)"?/gi;
  for (const match of text.matchAll(pattern)) {
    if (tableNames.has(match[2].toLowerCase())) hits.push(`${match[1]} ${match[2]}`);
  }
  return hits;
}
