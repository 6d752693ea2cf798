import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../../../../vitest.config.js';

/** `npm run screenshots`: only the screenshot script, with the repository's aliases. */
export default defineConfig({
  ...base,
  root: fileURLToPath(new URL('../../../../', import.meta.url)),
  test: { ...base.test, include: ['packages/cli/test/inspector/screenshots.ts'] },
});
