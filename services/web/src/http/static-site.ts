/**
 * Static delivery of the built site. Vite puts content-hashed files under /assets/: they never change, so
 * browsers may keep them for a year. index.html names the current hashes, so it is revalidated on every
 * visit. Any other path without a file extension (a workspace or site route of the single-page app)
 * answers index.html; /api/ paths never do (the gateway sends those elsewhere).
 */
import path from 'node:path';
import express, { type Router } from 'express';

export const CACHE_IMMUTABLE = 'public, max-age=31536000, immutable';
export const CACHE_REVALIDATE = 'no-cache';
export const CACHE_SHORT = 'public, max-age=300';

export function isSpaRoute(requestPath: string): boolean {
  if (requestPath === '/api' || requestPath.startsWith('/api/')) return false;
  if (requestPath.startsWith('/assets/')) return false;
  return path.posix.extname(requestPath) === '';
}

export function staticSite(root: string): Router {
  const router = express.Router();
  const indexFile = path.join(root, 'index.html');
  router.use(
    express.static(root, {
      index: false,
      etag: true,
      lastModified: true,
      fallthrough: true,
      setHeaders(res, filePath) {
        const relative = path.relative(root, filePath).split(path.sep).join('/');
        if (relative.startsWith('assets/')) res.setHeader('Cache-Control', CACHE_IMMUTABLE);
        else if (relative.endsWith('.html')) res.setHeader('Cache-Control', CACHE_REVALIDATE);
        else res.setHeader('Cache-Control', CACHE_SHORT);
      },
    }),
  );
  router.get('/{*page}', (req, res, next) => {
    if (!isSpaRoute(req.path)) {
      next();
      return;
    }
    res.setHeader('Cache-Control', CACHE_REVALIDATE);
    res.sendFile(indexFile, { etag: true, lastModified: true, headers: { 'Content-Type': 'text/html; charset=utf-8' } }, (error) => {
      if (error) next(error);
    });
  });
  return router;
}
