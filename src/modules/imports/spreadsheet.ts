/**
 * The two accepted spreadsheet formats, told apart by content (never by the file name): XLSX
 * is a ZIP archive holding xl/workbook.xml; CSV is UTF-8 text without control characters.
 * Both are read back as a stream of rows of cell text.
 */
import { readCsvRows } from './csv-reader';
import { openXlsxRows } from './xlsx-reader';
import { fileRangeSource, r2RangeSource, readZipDirectory, startsWithZipMagic } from '../../core/zip-directory';
import { UnreadableFile } from '../../core/unreadable-file';

export type SpreadsheetFormat = 'csv' | 'xlsx';

/**
 * One non-empty row and its line: the row number a spreadsheet shows, counting the header and
 * any empty rows (a CSV cell holding line breaks is still one row).
 */
export interface SheetRow {
  line: number;
  cells: string[];
}

export interface SpreadsheetRows {
  rows: AsyncGenerator<SheetRow>;
  /** How much of the file has been read, 0..1, for a running estimate of the row total. */
  fractionRead(): number;
}

export const CONTENT_TYPES: Record<SpreadsheetFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

const SNIFF_BYTES = 8 * 1024;

/** Tab, LF, FF, CR are the only control characters a CSV may hold. */
function looksLikeText(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) return false;
    if (byte === 0x7f) return false;
  }
  try {
    // `stream: true` tolerates a multi-byte character cut by the sample's end.
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The upload's format, or a reason it is neither. XLSX is checked down to its workbook part so
 * a .docx or any other ZIP is refused at upload, not later in the queue.
 */
export async function sniffSpreadsheet(file: Blob): Promise<{ format: SpreadsheetFormat } | { reason: string }> {
  if (file.size === 0) return { reason: 'is empty' };
  const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
  if (startsWithZipMagic(head)) {
    try {
      const entries = await readZipDirectory(fileRangeSource(file));
      if (entries.has('xl/workbook.xml')) return { format: 'xlsx' };
      return { reason: 'is a ZIP archive but not an XLSX workbook' };
    } catch (error) {
      return { reason: error instanceof UnreadableFile ? error.message : 'is not a readable XLSX workbook' };
    }
  }
  if (head[0] === 0xfe && head[1] === 0xff) return { reason: 'is UTF-16 text; save the CSV as UTF-8' };
  if (head[0] === 0xff && head[1] === 0xfe) return { reason: 'is UTF-16 text; save the CSV as UTF-8' };
  if (looksLikeText(head)) return { format: 'csv' };
  return { reason: 'must be a CSV (UTF-8 text) or XLSX file' };
}

/** Data rows one import takes at most (the header row aside); a bigger file is refused before any row is imported. */
export const MAX_IMPORT_ROWS = 1_000_000;

/**
 * Reads the rows (empty ones skipped) only to count them, stopping as soon as there are more than
 * `maxDataRows` after the header: a file over the cap fails before its first row is imported,
 * and reading a hundred times fewer rows than it has.
 */
export async function assertRowsWithin(sheet: SpreadsheetRows, maxDataRows = MAX_IMPORT_ROWS): Promise<void> {
  let rows = 0;
  for await (const _row of sheet.rows) {
    rows += 1;
    if (rows > maxDataRows + 1) {
      const cap = maxDataRows.toLocaleString('en-US').replace(/,/g, ' ');
      throw new UnreadableFile(
        `the file has more than ${cap} rows, the most one import takes; split it into smaller files`,
      );
    }
  }
}

/** Opens a stored upload for streaming, from R2. */
export async function openStoredSpreadsheet(
  bucket: R2Bucket,
  storageKey: string,
  format: SpreadsheetFormat,
): Promise<SpreadsheetRows> {
  if (format === 'xlsx') return openXlsxRows(await r2RangeSource(bucket, storageKey));
  const object = await bucket.get(storageKey);
  if (!object) throw new UnreadableFile('the uploaded file is missing from storage');
  return readCsvRows(object.body, object.size);
}
