/**
 * A streaming CSV reader on papaparse: bytes are decoded as they arrive and parsed in blocks,
 * keeping only the unfinished last line between blocks (papaparse's own chunk-streaming
 * technique: parse with `ignoreLastRow`, carry the text after the returned cursor). Delimiter
 * and line ending are detected from the first block.
 */
import Papa from 'papaparse';
import type { SheetRow, SpreadsheetRows } from './spreadsheet';
import { UnreadableFile } from '../../core/unreadable-file';

/** Text parsed at a time; a multiple of the chunks R2 hands out. */
const BLOCK_CHARS = 256 * 1024;
/** An unfinished row longer than this means an unterminated quote (or a broken file). */
export const MAX_ROW_CHARS = 1024 * 1024;

interface Detected {
  delimiter: string;
  newline: '\n' | '\r' | '\r\n';
}

function detect(sample: string): Detected {
  const guess = Papa.parse<string[]>(sample, { preview: 20, delimitersToGuess: [',', ';', '\t', '|'] });
  const linebreak = guess.meta.linebreak;
  return {
    delimiter: guess.meta.delimiter || ',',
    newline: linebreak === '\r\n' || linebreak === '\r' ? linebreak : '\n',
  };
}

const isBlank = (row: string[]) => row.every((cell) => cell.trim() === '');

/**
 * Rows of a CSV byte stream (UTF-8, BOM stripped) with their line, counted per record as a
 * spreadsheet opening the file shows them; blank lines are skipped but counted.
 */
export function readCsvRows(stream: ReadableStream<Uint8Array>, totalBytes: number): SpreadsheetRows {
  let bytesRead = 0;

  async function* rows(): AsyncGenerator<SheetRow> {
    const reader = stream.getReader();
    const decoder = new TextDecoder('utf-8');
    let parser: InstanceType<typeof Papa.Parser> | undefined;
    let pending = '';
    let finished = false;
    let line = 0;
    try {
      while (!finished) {
        // At least one block of new text per parse, so a long unfinished row always progresses.
        const target = pending.length + BLOCK_CHARS;
        while (pending.length < target) {
          const { done, value } = await reader.read();
          if (done) {
            pending += decoder.decode();
            finished = true;
            break;
          }
          bytesRead += value.byteLength;
          pending += decoder.decode(value, { stream: true });
        }
        if (!parser) {
          if (pending.charCodeAt(0) === 0xfeff) pending = pending.slice(1);
          parser = new Papa.Parser({ ...detect(pending.slice(0, 64 * 1024)), quoteChar: '"' });
        }
        const result = parser.parse(pending, 0, !finished) as { data: string[][]; meta: { cursor: number } };
        pending = finished ? '' : pending.slice(result.meta.cursor);
        if (pending.length > MAX_ROW_CHARS)
          throw new UnreadableFile(`a row is longer than ${MAX_ROW_CHARS} characters (an unterminated quote?)`);
        for (const cells of result.data) {
          line += 1;
          if (!isBlank(cells)) yield { line, cells };
        }
      }
    } finally {
      reader.releaseLock();
      await stream.cancel().catch(() => undefined);
    }
  }

  return { rows: rows(), fractionRead: () => (totalBytes > 0 ? Math.min(1, bytesRead / totalBytes) : 0) };
}
