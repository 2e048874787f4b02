/**
 * Thin HTTP mapping of allocation's two public routes (both reached only through the gateway):
 *   GET /api/network/ad             -> requestAd: 200 Ad, 204, or a problem (400/401/429/503)
 *   GET /api/network/openapi.json   -> the OpenAPI 3.1 description of the network API
 */
import { problems } from '@pilot/http-kit';
import type { Express, RequestHandler } from 'express';
import { requestAd, type AdRequestDependencies } from '../use-cases/request-ad';
import { networkOpenApi } from './openapi';

/** Only GET allocates: a HEAD must not create an allocation whose body nobody receives. */
const onlyGet: RequestHandler = (_req, res, next) => {
  res.setHeader('Allow', 'GET');
  next(problems.methodNotAllowed());
};

export function mountRoutes(app: Express, deps: AdRequestDependencies): void {
  app.head('/api/network/ad', onlyGet);
  app.get('/api/network/ad', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const answer = await requestAd(deps, {
      authorization: req.headers.authorization,
      language: (req.query as Record<string, unknown>).language,
    });
    res.set(answer.headers);
    if (!answer.ad) {
      res.status(204).end();
      return;
    }
    res.status(200).json(answer.ad);
  });
  app.all('/api/network/ad', onlyGet);

  const document = JSON.stringify(networkOpenApi());
  app.get('/api/network/openapi.json', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(document);
  });
}
