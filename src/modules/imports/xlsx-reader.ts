/**
 * A streaming XLSX reader: the first worksheet's rows as arrays of cell text, one inflated
 * chunk at a time, parsed with saxes (a streaming XML parser). The ZIP is read by random access
 * (zip-directory.ts), so the shared-string table is loaded first and the sheet is then streamed
 * whatever the entry order; only the shared strings are held in memory, up to a cap.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import {
  openZipEntry,
  readZipDirectory,
  readZipText,
  type ByteRangeSource,
  type ZipEntry,
} from '../../core/zip-directory';
import type { SheetRow, SpreadsheetRows } from './spreadsheet';
import { UnreadableFile } from '../../core/unreadable-file';

/** Characters of shared strings kept in memory; a workbook above it fails with a clear error. */
export const MAX_SHARED_STRING_CHARS = 24 * 1024 * 1024;

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

interface XmlHandlers {
  open?: (tag: SaxesTagPlain) => void;
  close?: (tag: SaxesTagPlain) => void;
  text?: (text: string) => void;
}

/** A saxes parser whose first error is thrown from `write`/`close` instead of an event. */
function xmlParser(handlers: XmlHandlers) {
  const parser = new SaxesParser();
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= new UnreadableFile(`the workbook XML is malformed: ${error.message}`);
  });
  if (handlers.open) parser.on('opentag', handlers.open);
  if (handlers.close) parser.on('closetag', handlers.close);
  if (handlers.text) {
    parser.on('text', handlers.text);
    parser.on('cdata', handlers.text);
  }
  const check = () => {
    if (failure) throw failure;
  };
  return {
    write: (chunk: string) => {
      parser.write(chunk);
      check();
    },
    close: () => {
      parser.close();
      check();
    },
  };
}

async function* textChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function parseXml(stream: ReadableStream<Uint8Array>, handlers: XmlHandlers): Promise<void> {
  const parser = xmlParser(handlers);
  for await (const chunk of textChunks(stream)) parser.write(chunk);
  parser.close();
}

function xmlStream(text: string): ReadableStream<Uint8Array> {
  return new Blob([text]).stream();
}

function attr(tag: SaxesTagPlain, name: string): string | undefined {
  for (const [key, value] of Object.entries(tag.attributes)) if (localName(key) === name) return value;
  return undefined;
}

/** Resolves the first worksheet's entry through workbook.xml and its relationships. */
async function firstSheetEntry(source: ByteRangeSource, entries: Map<string, ZipEntry>): Promise<ZipEntry> {
  const workbook = entries.get('xl/workbook.xml');
  const rels = entries.get('xl/_rels/workbook.xml.rels');
  if (!workbook) throw new UnreadableFile('the file is a ZIP archive but not an XLSX workbook');
  let sheetRelId: string | undefined;
  await parseXml(xmlStream(await readZipText(source, workbook)), {
    open: (tag) => {
      if (!sheetRelId && localName(tag.name) === 'sheet') sheetRelId = attr(tag, 'id');
    },
  });
  if (sheetRelId && rels) {
    let target: string | undefined;
    await parseXml(xmlStream(await readZipText(source, rels)), {
      open: (tag) => {
        if (localName(tag.name) === 'Relationship' && attr(tag, 'Id') === sheetRelId) target = attr(tag, 'Target');
      },
    });
    const path = target?.startsWith('/') ? target.slice(1) : target ? `xl/${target}` : undefined;
    const entry = path ? entries.get(path) : undefined;
    if (entry) return entry;
  }
  const fallback = [...entries.keys()].filter((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name)).sort()[0];
  if (!fallback) throw new UnreadableFile('the workbook has no worksheet');
  return entries.get(fallback) as ZipEntry;
}

async function readSharedStrings(source: ByteRangeSource, entry: ZipEntry | undefined): Promise<string[]> {
  const strings: string[] = [];
  if (!entry) return strings;
  let current = '';
  let inText = false;
  let inPhonetic = false;
  let totalChars = 0;
  await parseXml(await openZipEntry(source, entry), {
    open: (tag) => {
      const name = localName(tag.name);
      if (name === 'si') current = '';
      else if (name === 'rPh') inPhonetic = true;
      else if (name === 't' && !inPhonetic) inText = true;
    },
    close: (tag) => {
      const name = localName(tag.name);
      if (name === 'si') {
        totalChars += current.length;
        if (totalChars > MAX_SHARED_STRING_CHARS)
          throw new UnreadableFile('the workbook has too much distinct text; save it as CSV instead');
        strings.push(current);
      } else if (name === 'rPh') inPhonetic = false;
      else if (name === 't') inText = false;
    },
    text: (text) => {
      if (inText) current += text;
    },
  });
  return strings;
}

/** Excel's last column is XFD, the 16 384th: a cell beyond it is forged, and would pad its row to billions of cells. */
export const MAX_XLSX_COLUMNS = 16_384;

/** Excel's last row: a row numbered beyond it is forged (and would not fit the row_number column). */
export const MAX_XLSX_ROWS = 1_048_576;

/** "AB12" → 27 (0-based column index); any column past MAX_XLSX_COLUMNS is refused. */
export function columnIndex(reference: string): number {
  let index = 0;
  for (const char of reference) {
    const code = char.charCodeAt(0);
    if (code < 65 || code > 90) break;
    index = index * 26 + (code - 64);
    if (index > MAX_XLSX_COLUMNS) {
      throw new UnreadableFile(`a cell (${reference.slice(0, 20)}) lies beyond column XFD, the last a spreadsheet has`);
    }
  }
  return index - 1;
}

/**
 * Streams the rows of the first worksheet as arrays of cell text (empty cells are ''), each with
 * the row number Excel shows: the row's `r` attribute, or the one after the previous row's.
 */
export async function openXlsxRows(source: ByteRangeSource): Promise<SpreadsheetRows> {
  const entries = await readZipDirectory(source);
  const sheet = await firstSheetEntry(source, entries);
  const shared = await readSharedStrings(source, entries.get('xl/sharedStrings.xml'));
  let fraction = 0;

  async function* rows(): AsyncGenerator<SheetRow> {
    const ready: SheetRow[] = [];
    let row: string[] | null = null;
    let line = 0;
    let cellType = 'n';
    let cellColumn = 0;
    let cellText = '';
    let capture = false;
    let inPhonetic = false;
    const parser = xmlParser({
      open: (tag) => {
        const name = localName(tag.name);
        if (name === 'row') {
          row = [];
          const number = Number(attr(tag, 'r'));
          line = Number.isSafeInteger(number) && number > line ? number : line + 1;
          if (line > MAX_XLSX_ROWS) {
            throw new UnreadableFile(`a row (${line}) lies beyond row ${MAX_XLSX_ROWS}, the last a spreadsheet has`);
          }
        } else if (name === 'c' && row) {
          cellType = attr(tag, 't') ?? 'n';
          const reference = attr(tag, 'r');
          cellColumn = reference ? columnIndex(reference) : row.length;
          cellText = '';
        } else if (name === 'rPh') inPhonetic = true;
        else if ((name === 'v' || name === 't') && !inPhonetic) capture = true;
      },
      close: (tag) => {
        const name = localName(tag.name);
        if (name === 'v' || name === 't') capture = false;
        else if (name === 'rPh') inPhonetic = false;
        else if (name === 'c' && row && cellColumn >= 0) {
          while (row.length < cellColumn) row.push('');
          row[cellColumn] = cellValue(cellType, cellText, shared);
        } else if (name === 'row' && row) {
          // Empty rows are skipped, as in a CSV: a sheet of empty <row/> elements imports nothing.
          if (row.some((cell) => cell.trim() !== '')) ready.push({ line, cells: row });
          row = null;
        }
      },
      text: (text) => {
        if (capture) cellText += text;
      },
    });
    let charsRead = 0;
    for await (const chunk of textChunks(await openZipEntry(source, sheet))) {
      charsRead += chunk.length;
      fraction = sheet.uncompressedSize > 0 ? Math.min(1, charsRead / sheet.uncompressedSize) : 0;
      parser.write(chunk);
      yield* ready.splice(0);
    }
    parser.close();
    yield* ready.splice(0);
  }

  return { rows: rows(), fractionRead: () => fraction };
}

function cellValue(type: string, text: string, shared: string[]): string {
  switch (type) {
    case 's':
      return shared[Number(text)] ?? '';
    case 'b':
      return text === '1' ? 'TRUE' : 'FALSE';
    case 'e':
      return '';
    default:
      return text;
  }
}
