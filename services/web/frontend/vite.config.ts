// Builds the workspace and the public site into ../dist/site (served by src/http/static-site.ts).
// No inline script or style is emitted: the gateway's page policy allows only same-origin files.
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: __dirname,
  base: '/',
  plugins: [react()],
  publicDir: false,
  build: {
    outDir: path.resolve(__dirname, '..', 'dist', 'site'),
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    sourcemap: true,
    modulePreload: { polyfill: false },
  },
  server: {
    port: 5173,
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
