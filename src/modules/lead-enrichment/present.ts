/** A profile_leads row in wire form (schemas.ts ProfileLeadSchema). */
import type { profileLeads } from '../../db/schema';
import { isoTimestamp } from '../../core/schemas';
import type { ProfileFields } from '../../providers/enrichment/interface';

type ProfileLeadRow = typeof profileLeads.$inferSelect;

export function presentProfileLead(row: ProfileLeadRow) {
  const profile = row.profile as { local?: boolean; fields?: ProfileFields; filled?: string[] };
  return {
    id: Number(row.id),
    lead_id: row.leadId === null ? null : Number(row.leadId),
    provider: row.provider,
    local: profile.local ?? row.provider === 'local',
    full_name: row.fullName,
    email: row.email,
    company: row.company,
    domain: row.domain,
    profile_url: row.profileUrl,
    fields: profile.fields ?? {},
    filled: profile.filled ?? [],
    job_id: row.jobId === null ? null : Number(row.jobId),
    created_at: isoTimestamp(row.createdAt) as string,
  };
}

export type ProfileLeadView = ReturnType<typeof presentProfileLead>;
