// `npm run lint:deps`: the module map's import rules (tests/support/architecture.ts, decision 0012)
// on this tree, with the cycle counts: run-time cycles, and cycles once type-only imports count.
// Exits 1 on any violation. tests/unit/architecture.test.ts runs the same rules in `npm test`.
import { resolve } from 'node:path';
import { checkArchitecture, cyclesIn, dependencyGraph } from '../tests/support/architecture.ts';

const root = resolve(import.meta.dirname, '..');
const graph = dependencyGraph(root);
const { runtime, all } = cyclesIn(root, graph);
const violations = checkArchitecture(root);

for (const v of violations) console.error(`${v.rule}: ${v.file}: ${v.detail}`);
console.log(
  `lint:deps: ${graph.files.length} files, ${graph.edges.length} imports; ` +
    `${runtime.length} run-time cycle(s), ${all.length} cycle(s) counting type-only imports; ` +
    `${violations.length} violation(s)`,
);
process.exitCode = violations.length ? 1 : 0;
