/**
 * What the prompts know of a lead: its name, company and firmographics, as text for a model and
 * as values for the local templates. Never its notes or custom fields: a prompt sends only what a
 * first email could decently use.
 */
export interface LeadFacts {
  id: number;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  company: string | null;
  job_title: string | null;
  industry: string | null;
  city: string | null;
  country: string | null;
}

export function describeLead(lead: LeadFacts): string {
  const lines = [
    ['Name', [lead.first_name, lead.last_name].filter(Boolean).join(' ')],
    ['Title', lead.job_title],
    ['Company', lead.company],
    ['Industry', lead.industry],
    ['Location', [lead.city, lead.country].filter(Boolean).join(', ')],
  ];
  return lines
    .filter(([, value]) => value)
    .map(([label, value]) => `${label}: ${value}`)
    .join('\n');
}

/** Free-form context a caller passes (text, or an object of facts), as one line of text. */
export function contextText(context: string | Record<string, unknown> | undefined): string {
  if (context === undefined) return '';
  if (typeof context === 'string') return context.trim();
  return Object.entries(context)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join('; ');
}

export function greetingName(lead: Pick<LeadFacts, 'first_name'>): string {
  return lead.first_name?.trim() || 'there';
}
