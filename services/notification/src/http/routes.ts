/**
 * The HTTP contract of API.md "Notifications through the bot", thin: parse, call the use case, answer.
 * GET answers the settings in force; PUT takes `{reviews?, queue?}` (booleans; anything else is 422 with
 * each failing field) and answers the settings in force after it. `queue` is in force for administrators
 * only: for anyone else it answers false, whatever was chosen.
 */
import { NotificationSettingsBody, validatorOf } from '@pilot/contracts';
import { requirePrincipal, problems, jsonBody } from '@pilot/platform';
import type { Express, RequestHandler } from 'express';
import { chooseSettings } from '../use-cases/choose-settings';
import type { NotificationDeps } from '../use-cases/deps';
import { readSettings } from '../use-cases/read-settings';

const PATH = '/api/workspace/notifications';
const checkSettings = validatorOf(NotificationSettingsBody);

export function mountRoutes(app: Express, deps: Pick<NotificationDeps, 'settings' | 'adminAccountIds' | 'clock'>): void {
  app.get(PATH, async (req, res) => {
    const caller = requirePrincipal(req);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await readSettings(deps, caller.accountId));
  });

  // Who is calling is known before the body is read.
  const signedIn: RequestHandler = (req, _res, next) => {
    requirePrincipal(req);
    next();
  };

  app.put(PATH, signedIn, jsonBody('1kb'), async (req, res) => {
    const caller = requirePrincipal(req);
    const checked = checkSettings(req.body ?? {});
    if (!checked.ok) throw problems.validation(checked.errors);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await chooseSettings(deps, caller.accountId, checked.value));
  });
}
