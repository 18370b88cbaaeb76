/**
 * The files module's public surface: what other modules, the jobs and the app may import from it.
 * Everything else in this folder is private to it (scripts/check-module-imports.mjs refuses deep imports).
 */
export { MAX_UPLOAD_MB, fileField } from './schemas';
export {
  deleteStoredFileIfUnused,
  fileResponse,
  findStoredFile,
  putUpload,
  safeFileName,
  storageKeyFor,
  storeFile,
  storeUpload,
  storedFileDownloadUrl,
  storedFileInsert,
  storedFileUnused,
  type PutFile,
} from './storage';
export {
  DOCUMENT_TYPES_DESCRIPTION,
  IMAGE_TYPES,
  MAX_UPLOAD_BYTES,
  STORED_CONTENT_TYPES,
  acceptUpload,
} from './upload-policy';
