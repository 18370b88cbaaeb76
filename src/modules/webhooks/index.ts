/** Outbound webhooks: what other modules and the job table use (see docs/domains/webhooks.md). */
export { webhookDeliveryJobHandler } from './delivery-job';
export {
  deliveryIdsOf,
  emitWebhookEvents,
  type EventRows,
  listenedEventsSql,
  sendWebhookDeliveries,
  webhookDeliveriesSql,
} from './emit';
export { leadAssignedData, leadCreatedData, leadNameSql } from './event-data';
export { sweepWebhookDeliveries, WEBHOOK_DELIVERY_RETENTION_DAYS } from './retention';
export { EVENT_DATA, eventPayloadSchema, registerWebhookPayloads } from './payloads';
