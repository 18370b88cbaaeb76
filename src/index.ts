/**
 * The Worker entry: HTTP requests go to the Hono app; queue batches (jobs and dead letters) to
 * the job runner, those of the events queue (tracking hits) to the events runner. The cron trigger
 * sweeps the job outbox, the jobs whose lease expired (jobs/lease-sweep.ts), what the service keeps
 * only for a while (retention-sweeps.ts) and credit reservations nobody closed
 * (modules/credits/expiry.ts), queues the calendar syncs that are due, looks up again the DNS
 * records of verified link domains not checked for a day (modules/tracking/link-domain-recheck.ts),
 * once a day snapshots every open deal's forecast and charges the month's phone number rentals not yet charged
 * (modules/voice/rentals.ts), and, on the daily trigger, schedules the lead-scoring retraining and
 * measures the common words of large organizations' lead searches (modules/leads/search-words.ts).
 */
import { buildApp } from './app';
import { DAILY_CRON } from './cron-triggers';
import type { Bindings } from './env';
import { consumeEvents, isEventsQueue } from './jobs/events-runner';
import type { JobMessage, TrackingHit } from './jobs/messages';
import { runLeaseSweep } from './jobs/lease-sweep';
import { runOutboxSweep } from './jobs/outbox';
import { consumeQueue } from './jobs/runner';
import { scheduleCalendarSyncs } from './modules/calendar';
import { runReservationSweep } from './modules/credits';
import { runForecastSnapshots } from './modules/forecast';
import { runFollowUpReminders } from './modules/lead-follow-ups';
import { runSearchWordsRefresh } from './modules/leads';
import { runScoreTrainingSchedule } from './modules/lead-scoring';
import { runLinkDomainRechecks } from './modules/tracking';
import { runNumberRentals } from './modules/voice';
import { runRetentionSweeps } from './retention-sweeps';

export { RateLimitCounter } from './core/rate-limit-counter';

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) =>
    isEventsQueue(batch.queue)
      ? consumeEvents(batch as MessageBatch<unknown>, env)
      : consumeQueue(batch as MessageBatch<JobMessage>, env),
  scheduled: async (controller, env) => {
    // Independent sweeps: one failing does not keep the others from running. The forecast
    // snapshot claims its UTC day first, so of the minute's runs only the day's first does it.
    const outcomes = await Promise.allSettled([
      runOutboxSweep(env),
      runLeaseSweep(env),
      runRetentionSweeps(env),
      runReservationSweep(env),
      runFollowUpReminders(env),
      runForecastSnapshots(env, new Date(controller.scheduledTime)),
      scheduleCalendarSyncs(env),
      runLinkDomainRechecks(env),
      runNumberRentals(env, new Date(controller.scheduledTime)),
      controller.cron === DAILY_CRON ? runScoreTrainingSchedule(env, new Date(controller.scheduledTime)) : null,
      controller.cron === DAILY_CRON ? runSearchWordsRefresh(env) : null,
    ]);
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  },
} satisfies ExportedHandler<Bindings, JobMessage | TrackingHit>;
