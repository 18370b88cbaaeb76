/**
 * Reading the route registry from tests: which routes exist, and which of their inputs name
 * records (path ids, `ids`, `*_id`), so sweeps cover every route by construction.
 */
import { z } from '@hono/zod-openapi';
import { buildApp } from '../../src/app';
import { routeRegistry, type RegisteredRoute } from '../../src/core/routes';

// Building the app imports every route module, which fills the registry.
export const app = buildApp();
export const routes: readonly RegisteredRoute[] = routeRegistry;

export function routeKey(route: RegisteredRoute): string {
  return `${route.method} ${route.path}`;
}

export function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  let current: unknown = schema;
  while (current && !(current instanceof z.ZodObject)) {
    if (current instanceof z.ZodPipe) current = current.in;
    else if (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault)
      current = current.unwrap();
    else return {};
  }
  return current ? ((current as z.ZodObject).shape as Record<string, z.ZodType>) : {};
}

function isRequired(field: z.ZodType): boolean {
  return !field.safeParse(undefined).success;
}

/** Required body/query keys that name records of the organization. */
export function recordKeys(route: RegisteredRoute): string[] {
  const shapes = [objectShape(route.body), objectShape(route.query)];
  return shapes.flatMap((shape) =>
    Object.entries(shape)
      .filter(([key, field]) => (key === 'ids' || key.endsWith('_id') || key.endsWith('_ids')) && isRequired(field))
      .map(([key]) => key),
  );
}

export function takesRecordReference(route: RegisteredRoute): boolean {
  return route.path.includes('{') || recordKeys(route).length > 0;
}

export function fillPath(path: string, params: Record<string, string | number> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (!(name in params)) throw new Error(`no value for path parameter ${name} in ${path}`);
    return encodeURIComponent(String(params[name]));
  });
}

/** String leaves of a schema that have no maximum length (every string input must have one). */
export function unboundedStrings(schema: z.ZodType | undefined, path = '$'): string[] {
  if (!schema) return [];
  if (schema instanceof z.ZodString) return schema.maxLength === null ? [path] : [];
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) {
    return unboundedStrings(schema.unwrap() as z.ZodType, path);
  }
  if (schema instanceof z.ZodPipe) return unboundedStrings(schema.in as z.ZodType, path);
  if (schema instanceof z.ZodArray) return unboundedStrings(schema.element as z.ZodType, `${path}[]`);
  if (schema instanceof z.ZodUnion)
    return (schema.options as z.ZodType[]).flatMap((option, i) => unboundedStrings(option, `${path}|${i}`));
  if (schema instanceof z.ZodObject) {
    return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, field]) =>
      unboundedStrings(field, `${path}.${key}`),
    );
  }
  return [];
}

function accepts(field: z.ZodType, value: unknown): boolean {
  return field.safeParse(value).success;
}

/**
 * A body field under the one URL rule: it takes an https URL and refuses a `javascript:` one.
 * `named` is true for a field whose name says it holds a URL (…_url, website, …logo), which must be one.
 */
export function urlField(key: string, field: z.ZodType): { isUrl: boolean; named: boolean } {
  const takesText = accepts(field, 'https://example.com/');
  return {
    isUrl: takesText && !accepts(field, 'javascript:alert(1)'),
    named: takesText && /(^|_)(url|website|logo)$/.test(key),
  };
}

/** A field that takes a day or an instant and refuses other text: a date field of the calendar rule. */
export function dateField(field: z.ZodType): boolean {
  const takesDate = ['2026-03-09', '2026-03-09T09:00:00Z', '2026-03-09T09:00:00-04:00'].some((value) =>
    accepts(field, value),
  );
  return takesDate && !accepts(field, 'notadate');
}
