/**
 * Every job kind's handler, in one table typed over the message union: a kind added to
 * messages.ts without a handler here does not compile, and nothing registers itself by being
 * imported. Handlers live beside their modules; src/jobs runs their lifecycle.
 */
import { calendarEventJobHandler, calendarSyncJobHandler } from '../modules/calendar';
import { companyEnrichmentJobHandler } from '../modules/companies';
import { exportJobHandler } from '../modules/exports';
import { leadImportJobHandler } from '../modules/imports';
import { crmImportJobHandler } from '../modules/integrations';
import { aiEmailBulkJobHandler } from '../modules/intelligence';
import { leadEnrichmentJobHandler } from '../modules/lead-enrichment';
import { leadScoringJobHandler } from '../modules/lead-scoring';
import { mailSendJobHandler } from '../modules/mail';
import { voiceJobHandler } from '../modules/voice';
import { webhookDeliveryJobHandler } from '../modules/webhooks';
import type { JobHandler } from './job-handler';
import type { JobKind, JobMessage } from './messages';

export const jobHandlers = {
  'lead-import': leadImportJobHandler,
  export: exportJobHandler,
  'company-enrichment': companyEnrichmentJobHandler,
  'mail-send': mailSendJobHandler,
  'calendar-sync': calendarSyncJobHandler,
  'calendar-event': calendarEventJobHandler,
  voice: voiceJobHandler,
  'crm-import': crmImportJobHandler,
  'ai-email-bulk': aiEmailBulkJobHandler,
  'webhook-delivery': webhookDeliveryJobHandler,
  'lead-scoring': leadScoringJobHandler,
  'lead-enrichment': leadEnrichmentJobHandler,
} satisfies { [K in JobKind]: JobHandler<K> };

/** The handler of a message's own kind (the table's type guarantees one exists). */
export function handlerFor<K extends JobKind>(message: Extract<JobMessage, { kind: K }>): JobHandler<K> {
  return (jobHandlers as { [Kind in JobKind]: JobHandler<Kind> })[message.kind as K];
}

/** Every kind with its handler, for the sweeps that visit every job table. */
export function everyJobKind(): { kind: JobKind; handler: JobHandler<JobKind> }[] {
  return (Object.keys(jobHandlers) as JobKind[]).map((kind) => ({
    kind,
    handler: jobHandlers[kind] as JobHandler<JobKind>,
  }));
}
