/**
 * Streaming export files. Rows are encoded page by page (CSV text, or XLSX: worksheet XML
 * deflated into a ZIP by fflate's streaming Zip) into an R2 multipart upload whose parts are
 * uploaded as soon as they fill, so a 100 000-row export never holds more than about two parts
 * (2 × EXPORT_PART_BYTES) plus one page of rows in memory.
 */
import { strToU8, Zip, ZipDeflate } from 'fflate';
import type { Cell } from './sources';

/** R2 multipart parts must be at least 5 MiB (all but the last) and all the same size. */
export const EXPORT_PART_BYTES = 5 * 1024 * 1024;

export type ExportFormat = 'csv' | 'xlsx';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Collects bytes into fixed-size parts of an R2 multipart upload, uploading each as it fills. */
export class R2MultipartWriter {
  private upload: R2MultipartUpload | undefined;
  private readonly parts: R2UploadedPart[] = [];
  private readonly full: Uint8Array[] = [];
  private buffer = new Uint8Array(EXPORT_PART_BYTES);
  private filled = 0;
  size = 0;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly contentType: string,
  ) {}

  write(bytes: Uint8Array): void {
    this.size += bytes.length;
    let offset = 0;
    while (offset < bytes.length) {
      const take = Math.min(EXPORT_PART_BYTES - this.filled, bytes.length - offset);
      this.buffer.set(bytes.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === EXPORT_PART_BYTES) {
        this.full.push(this.buffer);
        this.buffer = new Uint8Array(EXPORT_PART_BYTES);
        this.filled = 0;
      }
    }
  }

  private async uploadPart(bytes: Uint8Array): Promise<void> {
    this.upload ??= await this.bucket.createMultipartUpload(this.key, {
      httpMetadata: { contentType: this.contentType },
    });
    this.parts.push(await this.upload.uploadPart(this.parts.length + 1, bytes));
  }

  /** Uploads every part that is full. */
  async flush(): Promise<void> {
    while (this.full.length > 0) await this.uploadPart(this.full.shift() as Uint8Array);
  }

  async close(): Promise<number> {
    await this.flush();
    if (this.filled > 0 || this.parts.length === 0) await this.uploadPart(this.buffer.subarray(0, this.filled));
    await (this.upload as R2MultipartUpload).complete(this.parts);
    return this.size;
  }

  async abort(): Promise<void> {
    await this.upload?.abort().catch(() => undefined);
  }
}

export interface RowEncoder {
  header(columns: readonly string[]): void;
  rows(rows: Cell[][]): void;
  end(): void;
}

/**
 * OWASP's rule for CSV injection: a text cell starting with =, +, -, @, tab or carriage return
 * gets a leading apostrophe, so no spreadsheet runs it as a formula (`-1+1` included). Spreadsheet
 * programs show such a cell as text (Excel hides the apostrophe), and our import takes it off.
 * Numbers are written as numbers and need no guard.
 */
const FORMULA_LIKE = /^[=+\-@\t\r]/;

function csvCell(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_LIKE.test(value) ? `'${value}` : value;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvEncoder(write: (bytes: Uint8Array) => void): RowEncoder {
  const encoder = new TextEncoder();
  const line = (cells: readonly Cell[]) => `${cells.map(csvCell).join(',')}\r\n`;
  return {
    // The BOM makes spreadsheet programs read the file as UTF-8; our import strips it.
    header: (columns) => write(encoder.encode(`\uFEFF${line(columns)}`)),
    rows: (rows) => write(encoder.encode(rows.map(line).join(''))),
    end: () => undefined,
  };
}

const MAX_XLSX_CELL = 32_767;

function xmlText(value: string): string {
  return value
    .slice(0, MAX_XLSX_CELL)
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

const STATIC_PARTS: Record<string, string> = {
  '[Content_Types].xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>',
  '_rels/.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  'xl/workbook.xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Export" sheetId="1" r:id="rId1"/></sheets></workbook>',
  'xl/_rels/workbook.xml.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
  'xl/styles.xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="1"><xf/></cellXfs></styleSheet>',
};

/** One worksheet of inline strings and numbers (no shared-string table, so nothing accumulates). */
export function xlsxEncoder(write: (bytes: Uint8Array) => void): RowEncoder {
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure ??= error;
    else write(chunk);
  });
  for (const [name, xml] of Object.entries(STATIC_PARTS)) {
    const part = new ZipDeflate(name, { level: 6 });
    zip.add(part);
    part.push(strToU8(xml), true);
  }
  const sheet = new ZipDeflate('xl/worksheets/sheet1.xml', { level: 6 });
  zip.add(sheet);
  let rowIndex = 0;
  const push = (xml: string, final = false) => {
    sheet.push(strToU8(xml), final);
    if (failure) throw failure;
  };
  const rowXml = (cells: readonly Cell[]) => {
    rowIndex++;
    const body = cells
      .map((value, column) => {
        if (value === null || value === '') return '';
        const ref = `${columnName(column)}${rowIndex}`;
        if (typeof value === 'number' && Number.isFinite(value)) return `<c r="${ref}"><v>${value}</v></c>`;
        return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlText(String(value))}</t></is></c>`;
      })
      .join('');
    return `<row r="${rowIndex}">${body}</row>`;
  };
  return {
    header: (columns) =>
      push(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rowXml(columns)}`,
      ),
    rows: (rows) => push(rows.map(rowXml).join('')),
    end: () => {
      push('</sheetData></worksheet>', true);
      zip.end();
      if (failure) throw failure;
    },
  };
}
