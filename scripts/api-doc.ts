// `npm run api:doc [file]`: writes the API's OpenAPI 3.1 document (default var/openapi.json), the very
// document GET /api/openapi.json serves, generated from the routes' schemas without starting the shop.
// `npm run api:lint` lints what this writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { appModules } from '../src/host/modules.ts';
import { apiDocument } from '../src/http/api-docs.ts';

const file = resolve(process.argv[2] ?? 'var/openapi.json');
const document = await apiDocument(appModules);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
console.log(`api:doc: ${Object.keys(document.paths).length} paths written to ${file}`);
