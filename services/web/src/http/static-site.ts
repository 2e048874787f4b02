/**
 * Static delivery of the built site. Vite puts content-hashed files under /assets/: they never change, so
 * browsers may keep them for a year. index.html names the current hashes, so it is revalidated on every
 * visit. Any other path without a file extension (a workspace or site route of the single-page app)
 * answers index.html: 200 for a page the app has, 404 for any other (site-routes.ts); /api/ paths never
 * do (the gateway sends those elsewhere). The build holds a brotli and a gzip copy of every text file
 * (frontend/precompress.ts); express-static-gzip serves the one the browser accepts, brotli first, with
 * `Vary: Accept-Encoding`.
 */
import path from 'node:path';
import express, { type Router } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { isKnownPage } from './site-routes';

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
    expressStaticGzip(root, {
      enableBrotli: true,
      orderPreference: ['br', 'gz'],
      index: false,
      serveStatic: {
        index: false,
        etag: true,
        lastModified: true,
        fallthrough: true,
        setHeaders(res, filePath) {
          const relative = path.relative(root, filePath).split(path.sep).join('/');
          if (relative.startsWith('assets/')) res.setHeader('Cache-Control', CACHE_IMMUTABLE);
          else if (/\.html(?:\.br|\.gz)?$/.test(relative)) res.setHeader('Cache-Control', CACHE_REVALIDATE);
          else res.setHeader('Cache-Control', CACHE_SHORT);
        },
      },
    }),
  );
  router.get('/{*page}', (req, res, next) => {
    if (!isSpaRoute(req.path)) {
      next();
      return;
    }
    res.setHeader('Cache-Control', CACHE_REVALIDATE);
    if (!isKnownPage(req.path)) res.status(404);
    res.sendFile(indexFile, { etag: true, lastModified: true, headers: { 'Content-Type': 'text/html; charset=utf-8' } }, (error) => {
      if (error) next(error);
    });
  });
  return router;
}
