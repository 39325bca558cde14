import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

/**
 * Preloaded with `node --import`: appends the URL of every module the process loads to the file
 * named by RECORD_IMPORTS_FILE, so a test can tell what a start-up actually imported.
 */
const file = process.env.RECORD_IMPORTS_FILE;
if (file) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (resolved.url.startsWith('file:')) appendFileSync(file, `${resolved.url}\n`);
      return resolved;
    },
  });
}
