import { sha256Hex } from '../domain/secrets';
import { answerReply, confirmationQuestion, parseUpdate, startReply, visibleStatus, type AnswerOutcome, type AnswerPress, type BotReply, type StartCommand } from '../domain/sign-in';
import type { IdentityDeps } from './deps';

/**
 * A webhook update. Returns the reply to send (or null); a repeated update id is processed once.
 * If processing fails, the update id is released so the platform's retry is processed.
 */
export async function handleBotUpdate(deps: IdentityDeps, update: unknown): Promise<BotReply | null> {
  const { updateId, input } = parseUpdate(update);
  if (updateId === null || input === null) return null;
  const now = deps.clock.now();
  if (!(await deps.logins.claimUpdate(updateId, now))) return null;
  try {
    return input.kind === 'start' ? await ask(deps, input, now) : answerReply(input, await answer(deps, input, now));
  } catch (error) {
    await deps.logins.releaseUpdate(updateId).catch(() => undefined);
    throw error;
  }
}

/**
 * `/start <code>`: the first account to send a live code is the one asked (the same account sending it
 * again is asked again); anyone after it hears the link was used.
 */
async function ask(deps: IdentityDeps, start: StartCommand, now: Date): Promise<BotReply> {
  if (!start.code) return startReply(start.chatId, 'no_code');
  const codeHash = sha256Hex(start.code);
  const request = await deps.logins.findByCodeHash(codeHash);
  if (!request) return startReply(start.chatId, 'unknown_code');
  if (request.status !== 'pending') return startReply(start.chatId, 'already_used');
  if (visibleStatus(request, now) === 'expired') return startReply(start.chatId, 'expired');
  if (!(await deps.logins.claimCode(codeHash, now, start.accountId)) && (await deps.logins.codeUser(codeHash)) !== start.accountId) {
    return startReply(start.chatId, 'already_used');
  }
  return confirmationQuestion(start.chatId, request);
}

/**
 * A press of Confirm or Cancel: only the account that was asked answers, and only once. A request still
 * pending under an answer already given (a process that died between the two writes) is finished with
 * that answer, whichever button is pressed now.
 */
async function answer(deps: IdentityDeps, press: AnswerPress, now: Date): Promise<AnswerOutcome> {
  const request = await deps.logins.findById(press.requestId);
  if (!request || (await deps.logins.codeUser(request.codeHash)) !== press.accountId) return 'not_yours';
  if (request.status !== 'pending') return 'already_answered';
  if (visibleStatus(request, now) === 'expired') return 'expired';
  let outcome: 'confirmed' | 'cancelled' = press.answer === 'confirm' ? 'confirmed' : 'cancelled';
  if (!(await deps.logins.claimAnswer(request._id, outcome, press.accountId, now))) {
    const given = await deps.logins.answerOf(request._id);
    if (!given) return 'already_answered';
    outcome = given;
  }
  if (outcome === 'confirmed') await deps.logins.markConfirmed(request._id, press.accountId, press.displayName, now);
  else await deps.logins.markCancelled(request._id);
  deps.logger.info({ accountId: press.accountId, requestId: request._id, outcome }, 'login request answered');
  return outcome;
}
