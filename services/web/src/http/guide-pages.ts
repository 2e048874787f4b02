/**
 * The publishers guide's three pages as HTML whose text is in the page as served (readable with curl or
 * with JavaScript off): the build writes each page as index.html with the rendered document inside the
 * app's root element (frontend/publishers-guide.ts, `prerendered/`), and the app takes the page over
 * when it runs. The pages are read once, given the site's origin (PUBLIC_BASE_URL) and gzipped once.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import express, { type Router } from 'express';
import { withSiteOrigin } from './guide-origin';
import { PRERENDERED_PAGES } from './prerendered-pages';
import { CACHE_REVALIDATE } from './static-site';

interface Page {
  html: Buffer;
  gzip: Buffer;
}

export function guidePages(root: string, publicBaseUrl: string): Router {
  const origin = new URL(publicBaseUrl).origin;
  const pages = new Map<string, Page | null>();
  const pageAt = (address: string): Page | null => {
    if (!pages.has(address)) {
      const name: string | undefined = PRERENDERED_PAGES[address as keyof typeof PRERENDERED_PAGES];
      const file = name ? path.join(root, name) : null;
      const html = file && fs.existsSync(file) ? Buffer.from(withSiteOrigin(fs.readFileSync(file, 'utf8'), origin)) : null;
      pages.set(address, html ? { html, gzip: zlib.gzipSync(html, { level: 9 }) } : null);
    }
    return pages.get(address) ?? null;
  };
  const router = express.Router();
  router.get(Object.keys(PRERENDERED_PAGES).flatMap((address) => [address, `${address}/`]), (req, res, next) => {
    const address = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const page = pageAt(address);
    if (!page) {
      next(); // a build without the page: the app renders it
      return;
    }
    res.setHeader('Cache-Control', CACHE_REVALIDATE);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Vary', 'Accept-Encoding');
    if (req.acceptsEncodings('gzip', 'identity') === 'gzip') {
      res.setHeader('Content-Encoding', 'gzip');
      res.send(page.gzip);
    } else {
      res.send(page.html);
    }
  });
  return router;
}
