/**
 * A stored upload that cannot be read as a spreadsheet (broken ZIP, malformed XML, a runaway
 * row, missing object). Permanent: the import job fails at once instead of being retried.
 */
export class UnreadableFile extends Error {}
