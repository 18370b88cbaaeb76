// Writes the OpenAPI document the Worker serves to a file (for `redocly lint` in CI).
import { mkdirSync, writeFileSync } from 'node:fs';
import { buildApp } from '../src/app';
import { openApiConfig } from '../src/modules/docs/routes';

const target = process.argv[2] ?? '.tmp/openapi.json';
mkdirSync('.tmp', { recursive: true });
const document = buildApp().getOpenAPI31Document(openApiConfig());
writeFileSync(target, JSON.stringify(document, null, 2));
console.log(`wrote ${target}`);
