/**
 * What the OpenAPI document leaves undescribed, as JSON pointers a developer can follow: operations
 * without a description, parameters without one, properties of request and response schemas
 * without one (recursively, following `$ref` into components once each; a property that is a
 * `$ref` to a described component counts as described), component schemas without a description
 * or an example, and tags used by operations but not declared at the top level with a description.
 * Plain TypeScript: the test runs it in workerd, `npx tsx scripts/…` can run it in node.
 */

type Json = Record<string, unknown>;

export interface Undescribed {
  operations: string[];
  parameters: string[];
  properties: string[];
  components: string[];
  tags: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const COMPONENT_PREFIX = '#/components/schemas/';

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
function pointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function findUndescribed(document: Json): Undescribed {
  const found: Undescribed = { operations: [], parameters: [], properties: [], components: [], tags: [] };
  const components = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const visited = new Set<string>();

  const componentOf = (ref: unknown): Json | undefined =>
    typeof ref === 'string' && ref.startsWith(COMPONENT_PREFIX)
      ? components[ref.slice(COMPONENT_PREFIX.length)]
      : undefined;

  /** A property schema carries its own description, or is (or is nullable of) a `$ref` to a described component. */
  const described = (schema: Json): boolean => {
    if (typeof schema.description === 'string' && schema.description.trim() !== '') return true;
    if (schema.$ref) return typeof componentOf(schema.$ref)?.description === 'string';
    // `allOf: [{ $ref }, { description }]`: how a component used with its own metadata is written.
    if (Array.isArray(schema.allOf)) return (schema.allOf as Json[]).some((member) => described(member));
    const members = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    if (Array.isArray(members)) {
      const nonNull = members.filter((member) => member.type !== 'null');
      return nonNull.length === 1 && typeof nonNull[0].$ref === 'string' && described(nonNull[0]);
    }
    return false;
  };

  const walk = (schema: unknown, pointer: string): void => {
    if (!isObject(schema)) return;
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.slice(COMPONENT_PREFIX.length);
      if (visited.has(name) || !components[name]) return;
      visited.add(name);
      walk(components[name], `#/components/schemas/${pointerToken(name)}`);
      return;
    }
    if (isObject(schema.properties)) {
      for (const [key, property] of Object.entries(schema.properties)) {
        const at = `${pointer}/properties/${pointerToken(key)}`;
        if (isObject(property) && !described(property)) found.properties.push(at);
        walk(property, at);
      }
    }
    if (isObject(schema.items)) walk(schema.items, `${pointer}/items`);
    if (isObject(schema.additionalProperties)) walk(schema.additionalProperties, `${pointer}/additionalProperties`);
    for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
      const members = schema[keyword];
      if (!Array.isArray(members)) continue;
      for (const [index, member] of members.entries()) walk(member, `${pointer}/${keyword}/${index}`);
    }
  };

  const usedTags = new Set<string>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const at = `#/paths/${pointerToken(path)}/${method}`;
      if (typeof operation.description !== 'string' || operation.description.trim() === '') {
        found.operations.push(at);
      }
      for (const tag of (operation.tags ?? []) as string[]) usedTags.add(tag);
      ((operation.parameters ?? []) as Json[]).forEach((parameter, index) => {
        const schema = (parameter.schema ?? {}) as Json;
        if (!parameter.description && !schema.description) found.parameters.push(`${at}/parameters/${index}`);
        walk(schema, `${at}/parameters/${index}/schema`);
      });
      const body = operation.requestBody as Json | undefined;
      for (const [type, media] of Object.entries((body?.content ?? {}) as Record<string, Json>)) {
        walk(media.schema, `${at}/requestBody/content/${pointerToken(type)}/schema`);
      }
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          walk(media.schema, `${at}/responses/${status}/content/${pointerToken(type)}/schema`);
        }
      }
    }
  }

  // Components no operation reaches are walked too: the document shows them all.
  for (const name of Object.keys(components)) walk({ $ref: `${COMPONENT_PREFIX}${name}` }, '');
  for (const [name, component] of Object.entries(components)) {
    const at = `#/components/schemas/${pointerToken(name)}`;
    if (typeof component.description !== 'string' || component.description.trim() === '') {
      found.components.push(`${at}/description`);
    }
    if (component.example === undefined && component.examples === undefined) found.components.push(`${at}/example`);
  }

  const declared = new Map(((document.tags ?? []) as Json[]).map((tag) => [tag.name as string, tag]));
  for (const tag of [...usedTags].sort()) {
    const declaration = declared.get(tag);
    if (!declaration || typeof declaration.description !== 'string' || declaration.description.trim() === '') {
      found.tags.push(`#/tags (${tag})`);
    }
  }
  return found;
}
