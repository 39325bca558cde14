import { registerHooks } from 'node:module';

/**
 * `node --import` this to learn which npm packages a process loaded: their names, in load order, on
 * globalThis.loadedPackages (tests/unit/start-up-libraries.test.ts).
 */
const loaded = new Set<string>();
(globalThis as { loadedPackages?: Set<string> }).loadedPackages = loaded;
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url)?.[1];
    if (name) loaded.add(name);
    return resolved;
  },
});
