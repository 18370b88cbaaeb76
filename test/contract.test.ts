/**
 * The contract check of the shared test client (helpers/contract.ts) is itself tested: each kind
 * of mismatch between a response and the OpenAPI document fails, and a matching response passes.
 */
import { describe, expect, it } from 'vitest';
import { call, signupOrganization } from './helpers/api';
import { ContractViolation, assertMatchesContract } from './helpers/contract';

const json = new Headers({ 'content-type': 'application/json; charset=UTF-8' });
const failure = JSON.stringify({ success: false, error: { message: 'x', type: 'not_found', code: null } });

describe('the response contract check', () => {
  it('passes a response that matches the document', () => {
    expect(() => assertMatchesContract('GET', '/api/lead/view/12', 404, json, failure)).not.toThrow();
  });

  it('fails a status the operation does not declare', () => {
    expect(() => assertMatchesContract('GET', '/api/lead/view/12', 418, json, failure)).toThrow(ContractViolation);
    expect(() => assertMatchesContract('GET', '/api/health', 409, json, failure)).toThrow(/does not declare/);
  });

  it('fails a content type the status does not declare', () => {
    const html = new Headers({ 'content-type': 'text/html' });
    expect(() => assertMatchesContract('GET', '/api/lead/view/12', 404, html, '<p>no</p>')).toThrow(/not declared/);
  });

  it('fails a JSON body that does not validate against the declared schema', () => {
    const wrong = JSON.stringify({
      success: false,
      error: { message: 'x', type: 'not_found', code: null, details: {} },
    });
    expect(() => assertMatchesContract('GET', '/api/lead/view/12', 404, json, wrong)).toThrow(/does not match/);
    const conflict = JSON.stringify({
      success: false,
      error: { message: 'x', type: 'conflict', code: 'duplicate_lead', details: { lead_id: 'seven', field: 'email' } },
    });
    expect(() => assertMatchesContract('POST', '/api/lead/add', 409, json, conflict)).toThrow(/lead_id/);
  });

  it('checks declared formats (date-time)', async () => {
    const owner = await signupOrganization();
    const created = await call('POST', '/api/lead/add', {
      token: owner.token,
      body: { first_name: 'Ada', last_name: 'Lovelace' },
    });
    expect(created.status).toBe(201);
    const body = created.body;
    expect(() => assertMatchesContract('POST', '/api/lead/add', 201, json, JSON.stringify(body))).not.toThrow();
    body.data.created_at = 'yesterday';
    expect(() => assertMatchesContract('POST', '/api/lead/add', 201, json, JSON.stringify(body))).toThrow(
      /created_at.*date-time/,
    );
  });

  it('answers for unknown paths only with the failure envelope', () => {
    expect(() => assertMatchesContract('GET', '/api/nothing-here', 404, json, failure)).not.toThrow();
    expect(() => assertMatchesContract('GET', '/api/nothing-here', 200, json, '{}')).toThrow(/not an operation/);
  });
});
