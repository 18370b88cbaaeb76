/**
 * CSV injection: every text cell a spreadsheet could run as a formula leaves the export with a
 * leading apostrophe (OWASP: =, +, -, @, tab, carriage return), and our import takes it off again.
 */
import { describe, expect, it } from 'vitest';
import { csvEncoder } from '../src/modules/exports/file-writers';
import { mapRow, planColumns } from '../src/modules/imports/header-mapping';

function csvLineOf(cells: (string | number | null)[]): string {
  const chunks: Uint8Array[] = [];
  csvEncoder((bytes) => chunks.push(bytes)).rows([cells]);
  return new TextDecoder().decode(chunks[0]).replace(/\r\n$/, '');
}

describe('CSV export escaping', () => {
  it('guards every cell that starts like a formula, and nothing else', () => {
    const guarded = ['-1+1', '+1+1', '=1+2', '@SUM(A1)', '+1-555-0100', '-'];
    expect(guarded.map((cell) => csvLineOf([cell]))).toEqual(guarded.map((cell) => `'${cell}`));
    expect(csvLineOf(['\t=1'])).toBe(`'\t=1`);
    expect(csvLineOf(['\r=1'])).toBe(`"'\r=1"`);
    expect(csvLineOf(['Ada', 'a-b', '1+1', -5, 12.5, null])).toBe('Ada,a-b,1+1,-5,12.5,');
  });

  it('is undone by the import, so an exported file imports the original values', () => {
    const plan = planColumns(['phone_number', 'first_name']);
    const row = mapRow(plan, ["'+1-555-0100", "'-1+1"]);
    expect(row.fields).toMatchObject({ phone_number: '+1-555-0100', first_name: '-1+1' });
  });
});
