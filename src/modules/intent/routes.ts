/**
 * Intent signals (by API key at /api/v1/intent-signal, or from the app) and intent alerts: the
 * alert list, the hot leads, a lead's signals, and acknowledging an alert. A lead or alert of
 * another organization is a 404.
 */
import { created, list, ok, wholeList } from '../../core/http';
import { createRouter, defineRoute, envelope, idParam, jsonBody, listEnvelope } from '../../core/routes';
import { acknowledgeAlert, AlertListQuery, hotLeads, listAlerts } from './alerts';
import {
  ApiKeySignalBody,
  AppSignalBody,
  HotLeadSchema,
  HotLeadsQuery,
  IntentAlertSchema,
  IntentSignalSchema,
  RecordedSignalSchema,
} from './schemas';
import { LeadSignalsQuery, listLeadSignals, recordSignal } from './service';

export const intentRoutes = createRouter();
const tags = ['Intent signals and alerts'];
const recorded = envelope(RecordedSignalSchema, 'Signal recorded; the lead rescored');

intentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/intent-signal',
    operationId: 'recordIntentSignalByApiKey',
    description:
      "Records a behavioural signal (one of the nine signal types) for a lead of the API key's organization, with source `api`. The lead's intent score is recomputed at once (per-type weights, half-life 7 days); when it crosses the hot threshold (50) an intent alert is created and the assigned rep is notified. Answers the signal with the new score.",
    tags,
    summary: 'Record an intent signal for a lead of the key’s organization (source api)',
    auth: 'apiKey',
    // A signal is a write about a lead, sent from the same pages as the form keys.
    scope: 'leads:write',
    request: { body: jsonBody(ApiKeySignalBody) },
    responses: { 201: recorded },
  }),
  async (c) => created(c, await recordSignal(c.var.tenant, c.req.valid('json'), 'api'), 'Signal recorded'),
);

intentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/intent-alert/signal',
    operationId: 'recordIntentSignal',
    description:
      "Records a behavioural signal for a lead of the caller's organization (source defaults to `app`). The lead's intent score is recomputed at once; crossing the hot threshold creates one alert and notifies the assigned rep. Answers the signal with the new score.",
    tags,
    summary: 'Record an intent signal for a lead (source defaults to app)',
    auth: 'bearer',
    request: { body: jsonBody(AppSignalBody) },
    responses: { 201: recorded },
  }),
  async (c) => created(c, await recordSignal(c.var.tenant, c.req.valid('json'), 'app'), 'Signal recorded'),
);

intentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/intent-alert/list',
    operationId: 'listIntentAlerts',
    description:
      "Lists intent alerts, newest first. An alert is created once each time a lead's intent score crosses the hot threshold from below (not once per signal). Filters: lead, assigned rep, creation date range.",
    tags,
    summary: 'Intent alerts: one each time a lead’s intent score crossed the hot threshold',
    auth: 'bearer',
    request: { query: AlertListQuery },
    responses: { 200: listEnvelope(IntentAlertSchema) },
  }),
  async (c) => list(c, await listAlerts(c.var.tenant, c.req.valid('query'))),
);

intentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/intent-alert/hot-leads',
    operationId: 'listHotLeads',
    description:
      'The leads whose decayed intent score is at or above the hot threshold now, hottest first, each with its recent signals and the reasons it is hot (signal type, age and weight contributed).',
    tags,
    summary: 'Leads whose intent score is at or above the hot threshold now, hottest first, with the reasons',
    auth: 'bearer',
    request: { query: HotLeadsQuery },
    responses: {
      200: listEnvelope(HotLeadSchema, 'Hot leads', {
        whole: true,
        rows: 'The hot leads, highest intent score first (at most `limit`)',
        total: 'Every lead hot now under the filters, counted; data holds the first `limit` of them',
      }),
    },
  }),
  async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await hotLeads(c.var.tenant, query);
    return list(c, { ...wholeList(rows, query.limit), total }, 'Hot leads');
  },
);

intentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/intent-alert/lead/{leadId}',
    operationId: 'listLeadIntentSignals',
    description:
      'Pages through the intent signals of one lead of the organization, newest first; 404 for a lead of another organization.',
    tags,
    summary: 'The intent signals of one lead, newest first',
    auth: 'bearer',
    request: { params: idParam('leadId'), query: LeadSignalsQuery },
    responses: { 200: listEnvelope(IntentSignalSchema) },
  }),
  async (c) => list(c, await listLeadSignals(c.var.tenant, c.req.valid('param').leadId, c.req.valid('query'))),
);

intentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/intent-alert/acknowledge/{id}',
    operationId: 'acknowledgeIntentAlert',
    description:
      'Marks an intent alert as acknowledged by the caller. Acknowledging again changes nothing: the first acknowledgement (time and user) is kept.',
    tags,
    summary: 'Acknowledge an intent alert (again: no change, the first acknowledgement is kept)',
    auth: 'bearer',
    request: { params: idParam() },
    responses: { 200: envelope(IntentAlertSchema, 'Alert acknowledged') },
  }),
  async (c) => ok(c, await acknowledgeAlert(c.var.tenant, c.req.valid('param').id), 'Alert acknowledged'),
);
