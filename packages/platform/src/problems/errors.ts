import { isInfrastructureError } from '../infrastructure-errors';
import type { Logger } from '../logging';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { HttpError, PROBLEM_CONTENT_TYPE, problems } from './problem';

/** Where a service app keeps PUBLIC_BASE_URL for the `type` of its problems (`app.locals`, set at start). */
export const PUBLIC_BASE_URL_LOCAL = 'publicBaseUrl';

function publicBaseUrlOf(res: Response): string | undefined {
  const value: unknown = res.app?.locals?.[PUBLIC_BASE_URL_LOCAL];
  return typeof value === 'string' ? value : undefined;
}

export function sendProblem(res: Response, error: HttpError): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(error.toBody(publicBaseUrlOf(res))));
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Maps anything thrown to a problem: ours as is, body-parser's by type, infrastructure to 503, the rest 500. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.too.large':
      return problems.payloadTooLarge();
    case 'entity.parse.failed':
      return problems.badRequest('invalid_json', 'The body is not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return problems.unsupportedMediaType();
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return problems.badRequest('invalid_body', 'The body could not be read');
    default:
      break;
  }
  if (isInfrastructureError(error)) return problems.unavailable();
  if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
    return problems.badRequest('bad_request', 'The request could not be understood');
  }
  return problems.internal();
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const problem = toHttpError(error);
    if (problem.status >= 500) {
      logger.error({ err: error, reqId: req.id, path: req.path }, problem.status === 503 ? 'dependency unavailable' : 'unhandled error');
    }
    sendProblem(res, problem);
  };
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(problems.notFound('route_not_found', 'No such resource'));
};
