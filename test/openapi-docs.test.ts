/**
 * The OpenAPI document is documented as well as it is typed: every operation, parameter and
 * property of every request and response says what it is, every component schema has a
 * description and an example, and every tag is declared. The failure lists the JSON pointers to fix.
 */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { openApiConfig } from '../src/modules/docs/routes';
import { findUndescribed } from './helpers/undescribed';

type Json = Record<string, any>;

const document = buildApp().getOpenAPI31Document(openApiConfig()) as unknown as Json;
const undescribed = findUndescribed(document);

describe('the OpenAPI document describes everything', () => {
  it.each([
    ['operations without a description', undescribed.operations],
    ['parameters without a description', undescribed.parameters],
    ['request and response properties without a description', undescribed.properties],
    ['component schemas without a description or an example', undescribed.components],
    ['tags used but not declared with a description', undescribed.tags],
  ])('has no %s', (what, pointers) => {
    expect(pointers, `${pointers.length} ${what}:\n  ${pointers.join('\n  ')}`).toEqual([]);
  });

  it('describes every property of Lead', () => {
    const lead = document.components.schemas.Lead;
    expect(lead.description).toBeTruthy();
    expect(lead.example).toBeDefined();
    const missing = Object.entries(lead.properties as Record<string, Json>)
      .filter(([, property]) => !property.description)
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('lists each operation’s declared errors in its description, from its responses', () => {
    const add = document.paths['/api/lead/add'].post;
    expect(add.description).toContain('**Errors**');
    expect(add.description).toMatch(/^- 409 — .*lead_id/m);
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const errors = Object.keys(operation.responses).filter((status) => Number(status) >= 400);
        for (const status of errors) {
          expect(operation.description, `${method} ${path}`).toContain(
            `- ${status} — ${operation.responses[status].description}`,
          );
        }
        // The hand-written part comes first and is not just the generated paragraphs.
        expect(operation.description.split('\n\n')[0], `${method} ${path}`).not.toMatch(/^(\*\*Errors\*\*|Requires)/);
      }
    }
  });

  it('declares the tags in use and no others', () => {
    const used = new Set(
      Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((methods) =>
        Object.values(methods).flatMap((operation) => operation.tags ?? []),
      ),
    );
    expect(new Set((document.tags as Json[]).map((tag) => tag.name))).toEqual(used);
  });
});
