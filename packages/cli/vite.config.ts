import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The inspector's web client: plain TypeScript DOM code in web/, built to web-dist/ (served by `sessref serve`). */
export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: '/',
  publicDir: 'public',
  // The server's CSP allows no inline script: keep every script in a file.
  build: {
    outDir: fileURLToPath(new URL('./web-dist', import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
  },
});
