/**
 * A typed client for this API: openapi-fetch over the types openapi-typescript generates from the
 * OpenAPI document (`npm run examples:generate` writes ./schema.d.ts; `npm run examples:check`
 * also typechecks this file, as CI does). Paths, parameters, bodies and answers are all checked
 * against the document, so a change of the contract that breaks a client breaks this file first.
 *
 * Run it against `npm start`:
 *   LM_EMAIL=ada@example.com LM_PASSWORD='correct horse' npx tsx examples/typed-client/create-lead.ts
 * or with a bearer token instead: LM_TOKEN=… (LM_BASE_URL defaults to http://127.0.0.1:8787).
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema';

/** The body of a 409 from POST /api/lead/add: a live lead already has the email. */
type DuplicateLead = Extract<
  paths['/api/lead/add']['post']['responses'][409]['content']['application/json'],
  { error: { code: 'duplicate_lead' } }
>;

const baseUrl = process.env.LM_BASE_URL ?? 'http://127.0.0.1:8787';
const client = createClient<paths>({ baseUrl });

async function bearerToken(): Promise<string> {
  if (process.env.LM_TOKEN) return process.env.LM_TOKEN;
  const { LM_EMAIL: email, LM_PASSWORD: password } = process.env;
  if (!email || !password) throw new Error('set LM_TOKEN, or LM_EMAIL and LM_PASSWORD');
  const { data, error } = await client.POST('/api/auth/login', { body: { email, password } });
  if (error) throw new Error(`login failed: ${error.error.message}`);
  return data.access_token;
}

/** A 409 answer of POST /api/lead/add is the duplicate-lead conflict (the document says which body it has). */
function isDuplicateLead(error: { error: { code?: unknown } }, response: Response): error is DuplicateLead {
  return response.status === 409 && error.error.code === 'duplicate_lead';
}

async function main(): Promise<void> {
  const token = await bearerToken();
  client.use({
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  });

  const email = process.env.LM_LEAD_EMAIL ?? `grace-${Date.now()}@navy.example`;
  const lead = {
    first_name: 'Grace',
    last_name: 'Hopper',
    email,
    company: 'Navy',
    // Custom fields are free-form keys and values.
    custom_fields: { budget: '50k' },
  };

  // Create the lead, or find the one that already has this email.
  let leadId: number;
  const added = await client.POST('/api/lead/add', { body: lead });
  if (added.data) {
    leadId = added.data.data.id;
    console.log(`created lead ${leadId}, custom fields ${JSON.stringify(added.data.data.custom_fields)}`);
  } else if (isDuplicateLead(added.error, added.response)) {
    leadId = added.error.error.details.lead_id;
    console.log(`lead ${leadId} already has ${email} (${added.error.error.details.field})`);
  } else {
    throw new Error(`lead/add answered ${added.response.status}: ${added.error.error.message}`);
  }

  // Unassign it: `assigned_to: null` clears the rep.
  const updated = await client.POST('/api/lead/update/{id}', {
    params: { path: { id: leadId } },
    body: { assigned_to: null },
  });
  if (updated.error) throw new Error(`lead/update answered ${updated.response.status}: ${updated.error.error.message}`);
  console.log(`lead ${leadId} assigned to ${updated.data.data.assigned_to ?? 'nobody'}`);

  // The same email again: the API refuses the duplicate and names the existing lead.
  const again = await client.POST('/api/lead/add', { body: lead });
  if (again.error && isDuplicateLead(again.error, again.response)) {
    const existing: number = again.error.error.details.lead_id;
    console.log(`a second add of ${email} is refused: lead ${existing} has it`);
  } else {
    throw new Error(`expected 409 duplicate_lead, got ${again.response.status}`);
  }
}

await main();
