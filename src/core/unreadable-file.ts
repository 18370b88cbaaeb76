/**
 * A stored upload that cannot be read (a broken ZIP; for a spreadsheet also malformed XML, a
 * runaway row, a missing object). Permanent: an import job fails at once instead of being retried.
 */
export class UnreadableFile extends Error {}
