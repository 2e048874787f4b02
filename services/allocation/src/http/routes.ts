/**
 * Thin HTTP mapping of allocation's two public routes (both reached only through the gateway):
 *   GET /api/network/ad             -> requestAd: 200 Ad, 204, or a problem (400/401/429/503)
 *   GET /api/network/openapi.json   -> the OpenAPI 3.1 description of the network API (@pilot/contracts)
 * and one internal route, signed by the gateway like every call:
 *   GET /internal/demand?format=&excludedOwnerAccountId=   what the index could serve a platform of that
 *                                   format and owner now (the gateway composes a platform's demand with it)
 */
import { networkOpenApi } from '@pilot/contracts';
import { problems, problemTypeOf, sendProblem, ServiceUnavailableError } from '@pilot/platform';
import type { Express, RequestHandler } from 'express';
import { TEST_ANSWER_HEADER } from '../domain/test-ad';
import { requestAd, type AdAnswer, type AdRequestDependencies } from '../use-cases/request-ad';
import type { AdAnswersCounter } from './ad-answers-counter';

/** Only GET allocates: a HEAD must not create an allocation whose body nobody receives. */
const onlyGet: RequestHandler = (_req, res, next) => {
  res.setHeader('Allow', 'GET');
  next(problems.methodNotAllowed());
};

export function mountRoutes(app: Express, deps: AdRequestDependencies, answers: AdAnswersCounter): void {
  app.head('/api/network/ad', onlyGet);
  app.get('/api/network/ad', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    let answer: AdAnswer;
    try {
      answer = await requestAd(deps, {
        authorization: req.headers.authorization,
        language: (req.query as Record<string, unknown>).language,
        testAnswer: req.headers[TEST_ANSWER_HEADER],
      });
    } catch (error) {
      answers.failed(error);
      throw error;
    }
    res.set(answer.headers);
    if (answer.test) {
      // A test key's answers (sandbox) are counted apart, so forced 503s never look like an outage.
      answers.test(answer.problem ? answer.problem.status : answer.ad ? 200 : 204);
      if (answer.problem) {
        sendProblem(res, answer.problem);
        return;
      }
    }
    if (!answer.ad) {
      if (!answer.test) answers.empty();
      res.status(204).end();
      return;
    }
    if (!answer.test) answers.filled();
    res.status(200).json(answer.ad);
  });
  app.all('/api/network/ad', onlyGet);

  app.get('/internal/demand', (req, res) => {
    const query = req.query as Record<string, unknown>;
    const format = query.format;
    const owner = query.excludedOwnerAccountId;
    if ((format !== 'bot' && format !== 'channel') || typeof owner !== 'string' || !/^[0-9]{1,20}$/.test(owner)) {
      throw problems.badRequest('bad_request', 'format (bot or channel) and excludedOwnerAccountId are required');
    }
    if (!deps.indexReady()) throw new ServiceUnavailableError('campaign-cache', 'the campaign snapshot is not loaded yet');
    res.setHeader('Cache-Control', 'no-store');
    res.json(deps.index.demand(format, owner));
  });

  const document = JSON.stringify(networkOpenApi({ publicBaseUrl: deps.publicBaseUrl, problemType: (code) => problemTypeOf(code, deps.publicBaseUrl) }));
  app.get('/api/network/openapi.json', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(document);
  });
}
