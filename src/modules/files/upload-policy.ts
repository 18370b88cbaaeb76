/**
 * What an upload may be. One size cap for every user upload (documents, profile images,
 * storage files) and content-type allow-lists decided from the bytes, never from the declared
 * type alone:
 *
 * - images (profile images, and accepted as documents): PNG, JPEG, GIF, WebP by magic bytes;
 *   SVG is refused because it can carry script;
 * - PDF by its `%PDF-` header;
 * - Office Open XML (docx, xlsx, pptx) by the ZIP signature plus a `[Content_Types].xml` entry
 *   and the format's part folder (`word/`, `xl/`, `ppt/`) in the central directory;
 * - legacy Office (doc, xls, ppt) by the OLE2 compound-file signature; which of the three
 *   comes from the file name, since telling them apart needs a full OLE parse;
 * - text/plain and text/csv, which have no magic bytes: named .txt/.csv (or declared as such),
 *   with a head that is valid UTF-8 and holds no NUL byte.
 *
 * Anything else, including plain ZIP archives, executables and HTML, is refused with 422.
 *
 * The signatures are matched here, not with the file-type package: it runs in workerd but adds
 * 159 KiB to the bundle and would still leave the OOXML, legacy-Office and text checks to this
 * file (docs/libraries.md, "Libraries over hand-written code").
 */
import { PayloadTooLarge, ValidationFailed } from '../../core/errors';
import { fileRangeSource, readZipDirectory, startsWithZipMagic } from '../../core/zip-directory';
import { RECORDING_CONTENT_TYPE } from '../../providers/voice/recording';

/** 25 MB per file. Multipart bodies as a whole are capped at the largest per-file cap plus 1 MB in app.ts. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

export type UploadKind = 'document' | 'image';

export interface AcceptedUpload {
  file: File;
  fileName: string;
  /** The type the bytes were recognised as; stored and served instead of the declared one. */
  contentType: string;
}

export const IMAGE_TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
} as const;

const OOXML = [
  { ext: 'docx', part: 'word/', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
  { ext: 'xlsx', part: 'xl/', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  { ext: 'pptx', part: 'ppt/', type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation' },
] as const;

const OLE: Record<string, string> = {
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
};

const TEXT: Record<string, string> = { txt: 'text/plain', text: 'text/plain', csv: 'text/csv' };

export const DOCUMENT_TYPES_DESCRIPTION =
  'PDF, PNG, JPEG, GIF, WebP, DOCX, XLSX, PPTX, DOC, XLS, PPT, CSV or plain text';

const EXTENSION_FOR: Record<string, string> = {
  ...IMAGE_TYPES,
  'application/pdf': 'pdf',
  ...Object.fromEntries(OOXML.map((format) => [format.type, format.ext])),
  ...Object.fromEntries(Object.entries(OLE).map(([ext, type]) => [type, ext])),
  'text/plain': 'txt',
  'text/csv': 'csv',
};

/**
 * Every content type a stored file can be served with: the upload policy's types, the import and
 * export files (CSV, XLSX), and call recordings (always WAV: providers/voice/recording.ts).
 */
export const STORED_CONTENT_TYPES = [...Object.keys(EXTENSION_FOR), RECORDING_CONTENT_TYPE];

const HEAD_BYTES = 64 * 1024;

function matches(bytes: Uint8Array, signature: (number | null)[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((byte, i) => byte === null || bytes[offset + i] === byte);
}

const ascii = (text: string) => Array.from(text, (char) => char.charCodeAt(0));

export function sniffImage(head: Uint8Array): keyof typeof IMAGE_TYPES | null {
  if (matches(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (matches(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (matches(head, ascii('GIF87a')) || matches(head, ascii('GIF89a'))) return 'image/gif';
  if (matches(head, ascii('RIFF')) && matches(head, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

function isPdf(head: Uint8Array): boolean {
  // The PDF header may sit anywhere in the first 1024 bytes.
  const marker = ascii('%PDF-');
  for (let i = 0; i <= Math.min(1024, head.length - marker.length); i++) if (matches(head, marker, i)) return true;
  return false;
}

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Entry names from the ZIP central directory; none when it is missing or malformed (then refused). */
async function zipEntryNames(file: File): Promise<string[]> {
  try {
    return [...(await readZipDirectory(fileRangeSource(file))).keys()];
  } catch {
    return [];
  }
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    // stream: a multi-byte character cut at the end of the head is not an error.
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

async function sniffDocument(file: File, head: Uint8Array): Promise<string | null> {
  const image = sniffImage(head);
  if (image) return image;
  if (isPdf(head)) return 'application/pdf';
  const extension = extensionOf(file.name);
  if (startsWithZipMagic(head)) {
    const names = await zipEntryNames(file);
    if (!names.includes('[Content_Types].xml')) return null;
    const candidates = OOXML.filter((format) => names.some((name) => name.startsWith(format.part)));
    return (candidates.find((format) => format.ext === extension) ?? candidates[0])?.type ?? null;
  }
  if (matches(head, OLE_SIGNATURE)) return OLE[extension] ?? null;
  const declared = file.type.split(';')[0].trim().toLowerCase();
  const textType = TEXT[extension] ?? (declared === 'text/csv' || declared === 'text/plain' ? declared : undefined);
  return textType && looksLikeText(head) ? textType : null;
}

/**
 * Checks one uploaded file against the cap and the allow-list of its kind. `field` names the
 * form field in the 422 (`file`, `image`).
 */
export async function acceptUpload(file: File, kind: UploadKind, field: string): Promise<AcceptedUpload> {
  if (file.size === 0) throw ValidationFailed.field(field, 'must not be empty');
  if (file.size > MAX_UPLOAD_BYTES)
    throw new PayloadTooLarge(`${field} exceeds the limit of ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`);
  const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  const contentType = kind === 'image' ? sniffImage(head) : await sniffDocument(file, head);
  if (!contentType) {
    const allowed = kind === 'image' ? 'PNG, JPEG, GIF or WebP' : DOCUMENT_TYPES_DESCRIPTION;
    throw ValidationFailed.field(field, `is not an allowed file type (the content must be ${allowed})`);
  }
  const fileName = file.name.trim() || `${kind === 'image' ? 'image' : 'file'}.${EXTENSION_FOR[contentType] ?? 'bin'}`;
  return { file, fileName, contentType };
}
