/**
 * The OpenAPI document as a contract every test response is checked against (the shared test
 * client calls `assertMatchesContract` on everything it receives): the status must be declared
 * for the operation, the content type declared for that status, and a JSON body must validate
 * against the declared schema (JSON Schema 2020-12, @cfworker/json-schema: it runs in workerd,
 * where ajv's code generation is not allowed).
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { buildApp } from '../../src/app';
import { openApiConfig } from '../../src/modules/docs/routes';

interface MediaType {
  schema?: Schema;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const COMPONENTS = 'https://contract.test/components/';

let cached: { document: Document; operations: { pattern: RegExp; path: string; method: string; op: Operation }[] };
const validators = new Map<string, Validator>();

/**
 * `$ref: '#/components/schemas/X'` → an absolute URI registered with the validator. Examples are
 * dropped: they are annotations, and the validator reads an example's `id` key as a schema `$id`.
 */
function absoluteRefs<T>(value: T, inProperties = false): T {
  if (Array.isArray(value)) return value.map((item) => absoluteRefs(item)) as T;
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (!inProperties && (key === 'example' || key === 'examples')) continue;
      copy[key] =
        key === '$ref' && typeof inner === 'string'
          ? inner.replace('#/components/schemas/', COMPONENTS)
          : absoluteRefs(inner, !inProperties && key === 'properties');
    }
    return copy as T;
  }
  return value;
}

function contract() {
  if (cached) return cached;
  const document = buildApp().getOpenAPI31Document(openApiConfig()) as unknown as Document;
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      path,
      method: method.toUpperCase(),
      op,
      pattern: new RegExp(
        `^${path
          .split(/\{\w+\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]+')}$`,
      ),
    })),
  );
  cached = { document, operations };
  return cached;
}

function validatorFor(key: string, schema: Schema): Validator {
  let validator = validators.get(key);
  if (!validator) {
    validator = new Validator(absoluteRefs(schema), '2020-12', false);
    for (const [name, component] of Object.entries(contract().document.components.schemas ?? {})) {
      validator.addSchema(absoluteRefs(component), `${COMPONENTS}${name}`);
    }
    validators.set(key, validator);
  }
  return validator;
}

/** Paths served outside the document (the document itself and its reference page). */
const UNDOCUMENTED = new Set(['/api/openapi.json', '/api/docs']);

export class ContractViolation extends Error {}

/**
 * Throws when the response breaks the document. Requests to paths the document does not list
 * (unknown routes) must answer with the failure envelope.
 */
export function assertMatchesContract(
  method: string,
  pathname: string,
  status: number,
  headers: Headers,
  text: string,
  /** Bytes of the body when `text` is not given for a binary body (files). */
  size = text.length,
) {
  if (UNDOCUMENTED.has(pathname) || pathname.startsWith('/api/docs/')) return;
  // A CORS preflight (core/cors.ts): answered by the middleware, empty, and not an operation of the document.
  if (method === 'OPTIONS' && status === 204) {
    if (size > 0) throw new ContractViolation(`OPTIONS ${pathname} 204 must not carry a body`);
    return;
  }
  const { operations, document } = contract();
  const lookup = method === 'HEAD' ? 'GET' : method;
  const found = operations.filter((entry) => entry.pattern.test(pathname));
  // A literal path wins over a templated one (`/api/lead/add` over `/api/lead/{id}`).
  const operation =
    found.find((entry) => entry.method === lookup && !entry.path.includes('{')) ??
    found.find((entry) => entry.method === lookup);
  const where = operation ? `${operation.method} ${operation.path}` : `${method} ${pathname}`;
  let declared: ResponseObject | undefined;
  if (operation) {
    declared = operation.op.responses[String(status)] ?? operation.op.responses.default;
    if (!declared) {
      throw new ContractViolation(
        `${where} answered ${status}, which the document does not declare (declared: ${Object.keys(operation.op.responses).join(', ')}): ${text.slice(0, 300)}`,
      );
    }
  } else {
    // Unknown path, or a known path with another method: 404 / 405 in the failure envelope.
    if (status !== 404 && status !== 405) {
      throw new ContractViolation(`${where} answered ${status} but is not an operation of the document`);
    }
    declared = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } as Schema } } };
  }
  const mediaType = headers.get('content-type')?.split(';')[0].trim().toLowerCase();
  const content = declared.content ?? {};
  if (method === 'HEAD' || status === 204 || status === 304 || size === 0) {
    if (size > 0) throw new ContractViolation(`${where} ${status} must not carry a body`);
    if (Object.keys(content).length > 0 && status !== 304 && method !== 'HEAD') {
      throw new ContractViolation(`${where} ${status} sent no body but the document declares ${Object.keys(content)}`);
    }
    return;
  }
  if (!mediaType) throw new ContractViolation(`${where} ${status} has a body without a Content-Type`);
  const entry =
    content[mediaType] ??
    Object.entries(content).find(
      ([declaredType]) => declaredType.endsWith('/*') && mediaType.startsWith(declaredType.slice(0, -1)),
    )?.[1] ??
    content['*/*'];
  if (!entry) {
    throw new ContractViolation(
      `${where} ${status} answered ${mediaType}, not declared (declared: ${Object.keys(content).join(', ') || 'no body'})`,
    );
  }
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) return;
  if (!entry.schema) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ContractViolation(`${where} ${status} declared JSON but sent: ${text.slice(0, 200)}`);
  }
  const result = validatorFor(`${where} ${status} ${mediaType}`, entry.schema).validate(body);
  if (!result.valid) {
    const problems = result.errors
      .filter((error) => error.keyword !== 'properties' && error.keyword !== '$ref' && error.keyword !== 'allOf')
      .slice(0, 6)
      .map((error) => `${error.instanceLocation}: ${error.error}`);
    throw new ContractViolation(
      `${where} ${status} body does not match the document:\n  ${problems.join('\n  ')}\nbody: ${text.slice(0, 400)}`,
    );
  }
  void document;
}
