// Builds the workspace and the public site into ../dist/site (served by src/http/static-site.ts).
// No inline script or style is emitted: the gateway's page policy allows only same-origin files.
// No source maps are built (the site is public). public/ holds the favicon. Every text file gets
// a brotli and a gzip copy (precompress.ts) that the web service serves to browsers that accept them.
// docs/publishers.md is rendered into the /guide page (publishers-guide.ts).
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './precompress';
import { publishersGuide } from './publishers-guide';

const outDir = path.resolve(__dirname, '..', 'dist', 'site');

export default defineConfig({
  root: __dirname,
  base: '/',
  plugins: [react(), publishersGuide(), precompress(outDir)],
  publicDir: path.resolve(__dirname, 'public'),
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    sourcemap: false,
    modulePreload: { polyfill: false },
  },
  server: {
    port: 5173,
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
