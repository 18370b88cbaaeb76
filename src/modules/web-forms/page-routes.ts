/**
 * The hosted form's public pages, in their own router so an edge Worker can mount them apart
 * from the CRUD routes: GET /api/v1/web-form/{form_link} renders the form, POST submits it.
 * A submission creates the lead in the form's organization by the rules of POST /api/v1/lead;
 * a lead with the same email or profile URL is never rewritten by the anonymous visitor: only
 * its empty fields are filled and the submission is recorded on it (existing-lead.ts). Then the
 * thank-you page, or a 303 to the form's redirect_url.
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../../core/context';
import { runAsTenant } from '../../core/database';
import { ApiError } from '../../core/errors';
import { clientIp } from '../../core/rate-limit';
import { badCharacter } from '../../core/text-guard';
import { parseWebUrl } from '../../core/web-url';
import { createRouter, defineRoute, htmlPage, ErrorEnvelope } from '../../core/routes';
import { actorContext } from '../../db/tenant';
import { formPage, notFoundPage, type PageField, thankYouPage, webFormPolicy } from '../../pages/web-form';
import { IngestLeadBody } from '../ingestion';
import { dedupeInputsOf, prefetchedContext } from '../ingestion';
import { ingestLead } from '../ingestion';
import { type LeadWriteContext, leadWriteContextSql } from '../leads';
import { FORM_FIELD_LABELS, type FormFieldName } from './schemas';
import { recordSubmissionOnLead } from './existing-lead';
import { findFormByLink, formPagePath } from './service';
import {
  filledByAPerson,
  formSecrets,
  HONEYPOT_FIELD,
  signRenderTime,
  TIMING_FIELD,
  withinSubmissionLimit,
} from './spam';

export const webFormPageRoutes = createRouter();
const tags = ['Web forms'];
const DEFAULT_THANKS = 'Thank you, we have received your details.';

const FormLinkPath = z.object({
  form_link: z
    .string()
    .max(200)
    .openapi({
      param: { name: 'form_link', in: 'path' },
      description: 'The form’s public link (form_link of the form); an unknown one answers the 404 page',
      example: 'pX3v9Qm2Lr7sT0aB5cD8eF1g',
    }),
});

const INPUT_TYPES: Record<FormFieldName, Pick<PageField, 'type' | 'autocomplete'>> = {
  first_name: { type: 'text', autocomplete: 'given-name' },
  last_name: { type: 'text', autocomplete: 'family-name' },
  email: { type: 'email', autocomplete: 'email' },
  phone_number: { type: 'tel', autocomplete: 'tel' },
  company: { type: 'text', autocomplete: 'organization' },
  job_title: { type: 'text', autocomplete: 'organization-title' },
  profile_url: { type: 'url', autocomplete: 'url' },
};

type Form = NonNullable<Awaited<ReturnType<typeof findFormByLink>>>;

function pageFields(form: Form, values: Record<string, string> = {}, errors: Record<string, string> = {}): PageField[] {
  return form.fields.map((field) => ({
    name: field.name,
    label: field.label || FORM_FIELD_LABELS[field.name as FormFieldName],
    required: field.required,
    ...INPUT_TYPES[field.name as FormFieldName],
    value: values[field.name] ?? '',
    error: errors[field.name] ?? null,
  }));
}

/** A redirect stored before the one URL rule (a CR/LF, a `;` in the host) counts as none: it can reach no header. */
function redirectTarget(form: Form): URL | null {
  return form.redirectUrl ? parseWebUrl(form.redirectUrl) : null;
}

function redirectOrigin(form: Form): string | null {
  return redirectTarget(form)?.origin ?? null;
}

/** An HTML answer under the page CSP, never cached (each carries its own nonce and timing). */
function page(c: Context<AppEnv>, status: 200 | 404 | 422, render: (nonce: string) => string, form?: Form) {
  const nonce = crypto.randomUUID().replaceAll('-', '');
  c.header('Content-Security-Policy', webFormPolicy(nonce, form ? redirectOrigin(form) : null));
  c.header('Cache-Control', 'no-store');
  return c.html(render(nonce), status);
}

async function renderForm(c: Context<AppEnv>, form: Form, status: 200 | 422, values = {}, errors = {}) {
  const timing = await signRenderTime(formSecrets(c), form.id);
  return page(
    c,
    status,
    (nonce) =>
      formPage({
        title: form.name,
        action: formPagePath(form.formLink),
        nonce,
        timing,
        honeypot: HONEYPOT_FIELD,
        timingField: TIMING_FIELD,
        fields: pageFields(form, values, errors),
      }),
    form,
  );
}

function thanks(c: Context<AppEnv>, form: Form) {
  if (redirectTarget(form)) {
    c.header('Cache-Control', 'no-store');
    return c.redirect(form.redirectUrl as string, 303);
  }
  return page(
    c,
    200,
    (nonce) => thankYouPage({ title: form.name, message: form.thankYouMessage || DEFAULT_THANKS, nonce }),
    form,
  );
}

webFormPageRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api/v1/web-form/{form_link}',
    operationId: 'showWebForm',
    tags,
    summary: 'The hosted lead-capture form (HTML)',
    description:
      'The hosted form as an accessible, responsive HTML page (labels, required markers, a single column on phones; no external assets; a strict Content-Security-Policy). It posts to the same address. An unknown form_link answers an HTML 404 page.',
    auth: 'public',
    unknownQuery: 'ignore',
    request: { params: FormLinkPath },
    responses: { 200: htmlPage('The form page'), 404: htmlPage('No form has this link: the 404 page') },
  }),
  async (c) => {
    const form = await findFormByLink(c.var.database(), c.req.valid('param').form_link);
    if (!form) return page(c, 404, notFoundPage);
    return renderForm(c, form, 200);
  },
);

/**
 * The submitted fields: form-urlencoded (text) or JSON (any value: a number or true is refused
 * beside its field by the rules of POST /api/v1/lead, never dropped).
 */
async function submittedValues(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type')?.split(';')[0].trim().toLowerCase();
  const raw = await c.req.text();
  if (type !== 'application/json') return Object.fromEntries(new URLSearchParams(raw));
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: nothing was submitted.
  }
  return {};
}

/** A submitted value as the form shows it again: text as typed, a number or boolean as written. */
function shownValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

webFormPageRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api/v1/web-form/{form_link}',
    operationId: 'submitWebForm',
    tags,
    summary: 'Submit the hosted form (form-urlencoded or JSON); answers the thank-you page or a 303',
    description:
      "Creates a lead in the form's organization from the form's fields (form-urlencoded or JSON; other fields are ignored), by the rules of POST /api/v1/lead, with the form's tags and assignee. A lead with the same email (any case) or profile URL is never rewritten by a submission: only its empty first name, last name, phone number and job title are filled; its other fields, owner, company and tags stay as they are. The submission is recorded on that lead as a feed entry `form_submitted` (changes: each submitted value as `to`, the lead's value as `from`) and a `form_submitted` intent signal, so a rep can apply what they trust. The visitor sees the same thank-you page either way. Answers the thank-you page, or 303 to the form's redirect_url. A missing required field or an invalid value (a NUL character or an unpaired surrogate; in JSON, a value that is not text, e.g. a number, as on POST /api/v1/lead) answers the form again (422) with the errors beside the fields. Spam defences: a honeypot field, a minimum fill time signed into the page (3 s) and a per-IP limit (10 submissions a minute); a submission that trips one is dropped, answered with the normal thank-you page. Honours Idempotency-Key (scoped to the form and the visitor's IP): a retry replays the first answer and creates nothing.",
    auth: 'public',
    unknownQuery: 'ignore',
    idempotency: true,
    // A NUL or an unpaired surrogate in a field answers the form again with the error beside it.
    checksOwnCharacters: true,
    // One read and one insert after the scope; a merge opens its own transaction.
    transaction: false,
    request: { params: FormLinkPath },
    responses: {
      200: htmlPage('The thank-you page (also for a submission dropped as spam)'),
      303: {
        description: 'Submitted: go to the form’s redirect_url',
        headers: { Location: { description: 'The form’s redirect_url', schema: { type: 'string' as const } } },
      },
      404: htmlPage('No form has this link: the 404 page'),
      422: {
        description:
          'The form again, with the invalid or missing fields marked (HTML); or, as JSON, an Idempotency-Key reused for another request',
        content: {
          'text/html': { schema: z.string().openapi({ description: 'The form page with the errors' }) },
          'application/json': { schema: ErrorEnvelope },
        },
      },
    },
  }),
  async (c) => {
    const form = await findFormByLink(c.var.database(), c.req.valid('param').form_link);
    if (!form) return page(c, 404, notFoundPage);
    const values = await submittedValues(c);
    const secrets = formSecrets(c);
    const timing = values[TIMING_FIELD];
    const person =
      (await withinSubmissionLimit(c)) &&
      !values[HONEYPOT_FIELD] &&
      (await filledByAPerson(secrets, form.id, typeof timing === 'string' ? timing : undefined));
    // The limiter's headers would tell a bot it was counted: a dropped submission looks like any other.
    c.header('RateLimit', undefined);
    c.header('RateLimit-Policy', undefined);
    if (!person) return thanks(c, form);

    // A value that is not text (JSON) goes to the rules as sent: they refuse it beside its field.
    const asked: Record<string, unknown> = Object.fromEntries(
      form.fields.flatMap((field) => {
        const value = values[field.name];
        const blank = value === undefined || value === null || (typeof value === 'string' && !value.trim());
        return blank ? [] : [[field.name, value]];
      }),
    );
    const errors: Record<string, string> = {};
    for (const field of form.fields) {
      const value = asked[field.name];
      if (field.required && value === undefined) errors[field.name] = 'This field is required.';
      const bad = typeof value === 'string' ? badCharacter(value) : null;
      if (bad) errors[field.name] = sentence(bad);
    }
    const parsed = IngestLeadBody.safeParse(asked);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const name = String(issue.path[0] ?? 'email');
        errors[form.fields.some((field) => field.name === name) ? name : form.fields[0].name] ??= sentence(
          issue.message,
        );
      }
    }
    const shown = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, shownValue(value)]));
    if (Object.keys(errors).length > 0 || !parsed.success) return renderForm(c, form, 422, shown, errors);

    try {
      // The batch's read rides on the scope statement: a new lead is then one insert.
      const { emails, urls } = dedupeInputsOf(parsed.data);
      const read = leadWriteContextSql(
        { orgId: form.organizationId },
        [{ assigned_to: form.assignedTo }],
        emails,
        1,
        urls,
      );
      let context: LeadWriteContext | undefined;
      await runAsTenant<unknown>(
        c,
        async () => {
          const outcome = await ingestLead(c.var.tenant, parsed.data, {
            tags: form.tags,
            assignedTo: form.assignedTo,
            onDuplicate: 'report',
            context,
          });
          // An existing lead: only its empty fields are filled; the submission is recorded on it.
          if (outcome.kind === 'existing')
            await recordSubmissionOnLead(c.var.tenant, outcome.leadId, parsed.data, form.id);
          c.res = thanks(c, form);
        },
        form.organizationId,
        sql`${read} as caller`,
        (checked) => {
          context = prefetchedContext(checked);
          return actorContext({ kind: 'webForm', formId: form.id, createdBy: form.createdBy, ip: clientIp(c) });
        },
      );
    } catch (error) {
      // A field the form asks for that the organization refuses (e.g. its assignee left): the form again.
      if (error instanceof ApiError && error.status === 422) {
        return renderForm(c, form, 422, shown, { [form.fields[0].name]: 'This form cannot be submitted right now.' });
      }
      throw error;
    }
    return c.res;
  },
);

function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return text.endsWith('.') ? text : `${text}.`;
}
