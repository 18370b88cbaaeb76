/**
 * POST /api/lead/add runs without a transaction (one read, one write statement), so races are
 * settled by unique indexes: concurrent creators of one email get one lead and 409s naming it,
 * and concurrent leads naming one new company share one company.
 */
import { describe, expect, it } from 'vitest';
import { call, signupOrganization, uniqueEmail } from './helpers/api';

describe('concurrent lead creation', () => {
  it('creates one lead for one email however many arrive at once, and answers the others 409 with its id', async () => {
    const org = await signupOrganization('Races');
    const email = uniqueEmail('race');
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', '/api/lead/add', {
          token: org.token,
          body: { first_name: 'Race', last_name: `Runner${i}`, email: i % 2 ? email.toUpperCase() : email },
        }),
      ),
    );
    const created = responses.filter((response) => response.status === 201);
    expect(created).toHaveLength(1);
    const refused = responses.filter((response) => response.status === 409);
    expect(refused).toHaveLength(7);
    for (const response of refused) {
      expect(response.body.error.code).toBe('duplicate_lead');
      expect(response.body.error.details.lead_id).toBe(created[0].body.data.id);
    }
  });

  it('links concurrent leads that name one new company to one company', async () => {
    const org = await signupOrganization('Races');
    const company = `Same Co ${crypto.randomUUID().slice(0, 6)}`;
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call('POST', '/api/lead/add', {
          token: org.token,
          body: {
            first_name: 'Co',
            last_name: `Worker${i}`,
            email: uniqueEmail('co'),
            company: i % 2 ? company.toLowerCase() : company,
          },
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill(201));
    const companyIds = new Set(responses.map((response) => response.body.data.company_id));
    expect(companyIds.size).toBe(1);
    expect([...companyIds][0]).toEqual(expect.any(Number));
  });
});
