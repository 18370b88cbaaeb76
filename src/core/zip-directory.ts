/**
 * The one ZIP reader: random access through the central directory at the end of the archive,
 * which says where each entry lives; one entry is then streamed and inflated on its own. The
 * upload policy reads the entry names to recognise an Office Open XML document (files module);
 * the XLSX reader loads the shared strings before the sheet, whatever their order in the file,
 * without ever holding the whole archive in memory (imports module). Works over any byte-range
 * source: an uploaded File during the upload check, or an R2 object in the queue consumer.
 */
import { UnreadableFile } from './unreadable-file';

export interface ByteRangeSource {
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
  stream(offset: number, length: number): Promise<ReadableStream<Uint8Array>>;
}

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;
const MAX_DIRECTORY_BYTES = 4 * 1024 * 1024;

export const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04] as const;

export function startsWithZipMagic(bytes: Uint8Array): boolean {
  return ZIP_MAGIC.every((byte, index) => bytes[index] === byte);
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Lists the entries of the archive from its central directory. */
export async function readZipDirectory(source: ByteRangeSource): Promise<Map<string, ZipEntry>> {
  if (source.size < EOCD_MIN) throw new UnreadableFile('file is too small to be a ZIP archive');
  const tailLength = Math.min(source.size, EOCD_MIN + MAX_COMMENT);
  const tail = await source.read(source.size - tailLength, tailLength);
  const tailView = view(tail);
  let eocd = -1;
  for (let offset = tail.length - EOCD_MIN; offset >= 0; offset--) {
    if (tailView.getUint32(offset, true) === EOCD_SIGNATURE) {
      eocd = offset;
      break;
    }
  }
  if (eocd < 0) throw new UnreadableFile('no ZIP central directory found');
  const entryCount = tailView.getUint16(eocd + 10, true);
  const directorySize = tailView.getUint32(eocd + 12, true);
  const directoryOffset = tailView.getUint32(eocd + 16, true);
  if (entryCount === 0xffff || directoryOffset === 0xffffffff)
    throw new UnreadableFile('ZIP64 archives are not supported');
  if (directorySize > MAX_DIRECTORY_BYTES || directoryOffset + directorySize > source.size)
    throw new UnreadableFile('ZIP central directory is malformed');
  const directory = await source.read(directoryOffset, directorySize);
  const dirView = view(directory);
  const decoder = new TextDecoder();
  const entries = new Map<string, ZipEntry>();
  let cursor = 0;
  for (let index = 0; index < entryCount; index++) {
    if (cursor + 46 > directory.length || dirView.getUint32(cursor, true) !== CENTRAL_SIGNATURE) {
      throw new UnreadableFile('ZIP central directory is malformed');
    }
    const nameLength = dirView.getUint16(cursor + 28, true);
    const extraLength = dirView.getUint16(cursor + 30, true);
    const commentLength = dirView.getUint16(cursor + 32, true);
    const name = decoder.decode(directory.subarray(cursor + 46, cursor + 46 + nameLength));
    entries.set(name, {
      name,
      method: dirView.getUint16(cursor + 10, true),
      compressedSize: dirView.getUint32(cursor + 20, true),
      uncompressedSize: dirView.getUint32(cursor + 24, true),
      localHeaderOffset: dirView.getUint32(cursor + 42, true),
    });
    cursor += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The entry's uncompressed bytes as a stream (stored or deflated entries). */
export async function openZipEntry(source: ByteRangeSource, entry: ZipEntry): Promise<ReadableStream<Uint8Array>> {
  const header = await source.read(entry.localHeaderOffset, 30);
  const headerView = view(header);
  if (header.length < 30 || headerView.getUint32(0, true) !== LOCAL_SIGNATURE)
    throw new UnreadableFile(`ZIP entry ${entry.name} is malformed`);
  const dataOffset = entry.localHeaderOffset + 30 + headerView.getUint16(26, true) + headerView.getUint16(28, true);
  if (dataOffset + entry.compressedSize > source.size) throw new UnreadableFile(`ZIP entry ${entry.name} is truncated`);
  if (entry.compressedSize === 0) return new Blob([]).stream();
  const raw = await source.stream(dataOffset, entry.compressedSize);
  if (entry.method === 0) return raw;
  if (entry.method === 8) return raw.pipeThrough(new DecompressionStream('deflate-raw'));
  throw new UnreadableFile(`ZIP compression method ${entry.method} is not supported`);
}

/** Reads a small entry (workbook, relationships) whole, refusing anything over `maxBytes`. */
export async function readZipText(
  source: ByteRangeSource,
  entry: ZipEntry,
  maxBytes = 4 * 1024 * 1024,
): Promise<string> {
  if (entry.uncompressedSize > maxBytes) throw new UnreadableFile(`ZIP entry ${entry.name} is too large`);
  return new Response(await openZipEntry(source, entry)).text();
}

export function fileRangeSource(file: Blob): ByteRangeSource {
  return {
    size: file.size,
    read: async (offset, length) => new Uint8Array(await file.slice(offset, offset + length).arrayBuffer()),
    stream: async (offset, length) => file.slice(offset, offset + length).stream(),
  };
}

export async function r2RangeSource(bucket: R2Bucket, key: string): Promise<ByteRangeSource> {
  const head = await bucket.head(key);
  if (!head) throw new UnreadableFile('the uploaded file is missing from storage');
  const get = async (offset: number, length: number) => {
    const object = await bucket.get(key, { range: { offset, length } });
    if (!object) throw new UnreadableFile('the uploaded file is missing from storage');
    return object.body;
  };
  return {
    size: head.size,
    read: async (offset, length) => new Uint8Array(await new Response(await get(offset, length)).arrayBuffer()),
    stream: get,
  };
}
