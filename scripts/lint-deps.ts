// `npm run lint:deps` runs `depcruise --config .dependency-cruiser.cjs` (the import rules) and then
// this: the checks dependency-cruiser cannot make (computed import(), `import('./…')` types, SQL naming
// another module's table, a module without index.ts; tests/support/architecture.ts; a statement sent as
// text outside the allowed files, scripts/sql-text.ts), with the counts
// of files, imports and cycles. Exits 1 on any violation. tests/unit/architecture.test.ts runs the same
// checks in `npm test`.
import { resolve } from 'node:path';
import { checkArchitecture } from '../tests/support/architecture.ts';
import { textExecutions } from './sql-text.ts';

const root = resolve(import.meta.dirname, '..');
const { violations, files, imports, typeOnlyImports, cycles } = await checkArchitecture(root);

// Decision 0040: no statement sent as text outside the allowed files (scripts/sql-text.ts).
for (const t of textExecutions()) {
  violations.push({ rule: 'no-text-execution', file: t.file, detail: `line ${t.line}: ${t.text}` });
}
for (const v of violations) console.error(`${v.rule}: ${v.file}: ${v.detail}`);
const runtime = cycles.filter((c) => c.kind === 'run-time').length;
console.log(
  `lint:deps: ${files.length} files, ${imports} imports of them (${typeOnlyImports} type-only); ` +
    `${runtime} run-time cycle(s), ${cycles.length - runtime} type cycle(s); ${violations.length} violation(s)`,
);
process.exitCode = violations.length ? 1 : 0;
