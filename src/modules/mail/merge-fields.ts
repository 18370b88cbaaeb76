/**
 * Merge fields of mail written once for many recipients (target-account bulk email): `{{name}}`
 * is the recipient's value, `{{name | fallback}}` the fallback when the recipient has none (an
 * empty fallback is allowed: `{{last_name | }}`). Names are matched without regard to case or the
 * spaces inside the braces. The text is merged as plain text: the body is escaped afterwards
 * (tracked-html.ts textToHtml), so a value holding `<script>` arrives as text.
 *
 * As in sales-engagement tools (Outreach, Salesloft), nothing is sent half-filled: an unknown
 * name (a typo) and a recipient without a value for a field that has no fallback are both
 * refused, naming the field of the request, before anything is recorded.
 */
import { ValidationFailed, type FieldIssue } from '../../core/errors';

export const MERGE_FIELDS = [
  'first_name',
  'last_name',
  'full_name',
  'email',
  'company',
  'job_title',
  'sender_name',
] as const;
export type MergeField = (typeof MERGE_FIELDS)[number];
export type MergeValues = Record<MergeField, string | null>;

const TOKEN = /\{\{([^{}|]*)(?:\|([^{}]*))?\}\}/g;

function fieldName(raw: string): string {
  return raw.trim().toLowerCase();
}

function isMergeField(name: string): name is MergeField {
  return (MERGE_FIELDS as readonly string[]).includes(name);
}

/** The first name and the rest of a full name, split at its first space. */
export function splitName(name: string | null): { first: string | null; last: string | null } {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  return { first: words[0] ?? null, last: words.length > 1 ? words.slice(1).join(' ') : null };
}

/** Refuses (422 naming `field`) a template naming a merge field that does not exist. */
export function checkMergeFields(templates: Record<string, string>): void {
  const issues: FieldIssue[] = [];
  for (const [field, template] of Object.entries(templates)) {
    const unknown = [...template.matchAll(TOKEN)]
      .map((match) => fieldName(match[1]))
      .filter((name) => !isMergeField(name));
    if (unknown.length > 0) {
      issues.push({
        field,
        message: `unknown merge field ${[...new Set(unknown)].map((name) => `{{${name}}}`).join(', ')}; known: ${MERGE_FIELDS.join(', ')}`,
      });
    }
  }
  if (issues.length > 0) throw new ValidationFailed(issues);
}

/** The template with the values filled in, and the fields without a value and without a fallback. */
export function mergeText(template: string, values: MergeValues): { text: string; missing: MergeField[] } {
  const missing = new Set<MergeField>();
  const text = template.replace(TOKEN, (whole, raw: string, fallback: string | undefined) => {
    const name = fieldName(raw);
    if (!isMergeField(name)) return whole;
    const value = values[name]?.trim();
    if (value) return value;
    if (fallback !== undefined) return fallback.trim();
    missing.add(name);
    return whole;
  });
  return { text, missing: [...missing] };
}

/**
 * Merges the templates for each recipient; refuses (422, one issue per request field) when any
 * recipient lacks a value for a field without a fallback, naming the fields and the recipients.
 */
export function mergeForEach<R extends { id: number }>(
  templates: Record<string, string>,
  recipients: R[],
  valuesOf: (recipient: R) => MergeValues,
): Record<string, string>[] {
  checkMergeFields(templates);
  const lacking = new Map<string, Map<MergeField, number[]>>();
  const merged = recipients.map((recipient) => {
    const values = valuesOf(recipient);
    return Object.fromEntries(
      Object.entries(templates).map(([field, template]) => {
        const { text, missing } = mergeText(template, values);
        for (const name of missing) {
          const byName = lacking.get(field) ?? new Map<MergeField, number[]>();
          byName.set(name, [...(byName.get(name) ?? []), recipient.id]);
          lacking.set(field, byName);
        }
        return [field, text];
      }),
    );
  });
  if (lacking.size > 0) {
    throw new ValidationFailed(
      [...lacking].map(([field, byName]) => ({
        field,
        message: [...byName]
          .map(
            ([name, ids]) =>
              `recipients ${ids.join(', ')} have no ${name}: give a fallback ({{${name} | …}}) or leave them out`,
          )
          .join('; '),
      })),
    );
  }
  return merged;
}
