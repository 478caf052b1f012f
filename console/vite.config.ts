import { defineConfig } from 'vite';

/**
 * The console's build: one script and one stylesheet under /console/assets, nothing inline, so the
 * page runs under a policy that allows no inline code (src/api/console-page.ts). JSX is compiled by
 * Vite's own transform for Preact; no Babel.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The polyfill is an inline script; every browser the console supports preloads modules itself.
    modulePreload: { polyfill: false },
    // No data: URLs made of the page's own files: each is a file the policy allows as 'self'.
    assetsInlineLimit: 0,
    target: 'es2022',
  },
});
