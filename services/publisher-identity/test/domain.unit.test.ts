import { expect } from 'chai';
import { nextStatus, PUBLISHER_STATUSES, TRANSITIONS, usernameOf, validateNewPublisher, validateReason, type PublisherAction } from '../src/domain/publisher';
import { constantTimeEqual, newLoginCode, newSessionId, SESSION_ID_PATTERN } from '../src/domain/secrets';
import { answerData, botUrlOf, describeBrowser, parseUpdate, visibleStatus, type StartCommand } from '../src/domain/sign-in';

describe('publisher links', () => {
  const valid = (type: 'bot' | 'channel', link: string) => {
    const result = validateNewPublisher({ type, link });
    return result.ok ? result.value.link : null;
  };

  it('normalizes @name, t.me/name and https://t.me/name to https://t.me/name', () => {
    expect(valid('channel', '@daily_news')).to.equal('https://t.me/daily_news');
    expect(valid('channel', 'https://t.me/daily_news')).to.equal('https://t.me/daily_news');
    expect(valid('channel', 't.me/daily_news/')).to.equal('https://t.me/daily_news');
    expect(valid('channel', ' http://telegram.me/daily_news ')).to.equal('https://t.me/daily_news');
    expect(valid('bot', '@WeatherBot')).to.equal('https://t.me/WeatherBot');
    expect(valid('bot', 'https://t.me/weather_bot')).to.equal('https://t.me/weather_bot');
  });

  it('accepts usernames of 5 to 32 letters, digits and underscores only', () => {
    expect(valid('channel', '@abcde')).to.equal('https://t.me/abcde');
    expect(valid('channel', `@${'a'.repeat(32)}`)).to.not.equal(null);
    expect(valid('channel', '@abcd')).to.equal(null);
    expect(valid('channel', `@${'a'.repeat(33)}`)).to.equal(null);
    expect(valid('channel', '@bad-name')).to.equal(null);
    expect(valid('channel', 'https://example.com/daily_news')).to.equal(null);
    expect(valid('channel', 'https://t.me/daily_news?start=1')).to.equal(null);
    expect(valid('channel', 'https://t.me/joinchat/abcdef')).to.equal(null);
  });

  it("requires a bot's username to end in bot", () => {
    expect(valid('bot', '@weather_helper')).to.equal(null);
    const result = validateNewPublisher({ type: 'bot', link: '@weather_helper' });
    expect(result.ok ? null : result.errors[0]?.code).to.equal('bot_username_required');
  });

  it('never accepts a bot token, as a field or inside the link', () => {
    const field = validateNewPublisher({ type: 'bot', link: '@weather_bot', token: 'x' });
    expect(field.ok ? null : field.errors.map((e) => e.code)).to.deep.equal(['bot_token_refused']);
    const inLink = validateNewPublisher({ type: 'bot', link: 'https://t.me/123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw' });
    expect(inLink.ok ? null : inLink.errors.map((e) => e.code)).to.deep.equal(['bot_token_refused']);
  });

  it('extracts the username or null', () => {
    expect(usernameOf('@x_y_z')).to.equal('x_y_z');
    expect(usernameOf('ftp://t.me/abcde')).to.equal(null);
  });

  it('requires a reason of 1 to 500 characters', () => {
    expect(validateReason({ reason: ' fine ' })).to.deep.equal({ ok: true, value: 'fine' });
    expect(validateReason({ reason: '  ' }).ok).to.equal(false);
    expect(validateReason({ reason: 'x'.repeat(500) }).ok).to.equal(true);
    expect(validateReason({ reason: 'x'.repeat(501) }).ok).to.equal(false);
    expect(validateReason(null).ok).to.equal(false);
  });
});

describe('publisher state machine', () => {
  const expected: Record<PublisherAction, Record<string, string>> = {
    submit: { draft: 'submitted', rejected: 'submitted' },
    approve: { submitted: 'approved', paused: 'approved' },
    reject: { submitted: 'rejected', approved: 'rejected', paused: 'rejected' },
    pause: { approved: 'paused' },
  };

  it('allows exactly the transitions of API.md and nothing else', () => {
    for (const action of Object.keys(TRANSITIONS) as PublisherAction[]) {
      for (const status of PUBLISHER_STATUSES) {
        expect(nextStatus(status, action), `${action} from ${status}`).to.equal(expected[action][status] ?? null);
      }
    }
  });

  it('gives review to administrators and submission to owners', () => {
    expect(TRANSITIONS.submit.who).to.equal('owner');
    expect([TRANSITIONS.approve.who, TRANSITIONS.reject.who, TRANSITIONS.pause.who]).to.deep.equal(['admin', 'admin', 'admin']);
  });
});

describe('sign-in rules', () => {
  const update = (text: unknown, from: Record<string, unknown> = { id: 42, is_bot: false, username: 'alice' }) => ({
    update_id: 7,
    message: { message_id: 1, chat: { id: 42, type: 'private' }, from, text },
  });

  it('reads /start <code> from a person in their private chat, with the username as display name', () => {
    expect(parseUpdate(update('/start abc_DEF-123')).input).to.deep.equal({ kind: 'start', chatId: 42, accountId: '42', displayName: 'alice', code: 'abc_DEF-123' });
    expect((parseUpdate(update('/start@pilot_signin_bot abc')).input as StartCommand).code).to.equal('abc');
    expect(parseUpdate(update('/start', { id: 42, first_name: 'Alice', last_name: 'B' })).input).to.include({ code: null, displayName: 'Alice B' });
  });

  it('ignores /start from a group, supergroup or channel, and a private chat that is not the sender\'s', () => {
    for (const type of ['group', 'supergroup', 'channel']) {
      expect(parseUpdate({ update_id: 7, message: { chat: { id: -5, type }, from: { id: 42 }, text: '/start abc' } }).input, type).to.equal(null);
    }
    expect(parseUpdate({ update_id: 7, message: { chat: { id: 43, type: 'private' }, from: { id: 42 }, text: '/start abc' } }).input).to.equal(null);
  });

  it('reads a press of Confirm or Cancel in a private chat, and nothing else', () => {
    const press = (data: unknown, chat: Record<string, unknown> = { id: 42, type: 'private' }) => ({
      update_id: 8,
      callback_query: { id: 'q1', from: { id: 42, username: 'alice' }, message: { message_id: 9, chat }, data },
    });
    const requestId = 'A'.repeat(22);
    expect(parseUpdate(press(answerData('confirm', requestId))).input).to.deep.equal({
      kind: 'answer',
      callbackQueryId: 'q1',
      chatId: 42,
      messageId: 9,
      accountId: '42',
      displayName: 'alice',
      requestId,
      answer: 'confirm',
    });
    expect(parseUpdate(press(answerData('cancel', requestId))).input).to.include({ answer: 'cancel' });
    expect(parseUpdate(press(answerData('confirm', requestId), { id: -1, type: 'group' })).input).to.equal(null);
    expect(parseUpdate(press('login:confirm:short')).input).to.equal(null);
    expect(parseUpdate(press('other')).input).to.equal(null);
  });

  it('names the browser from its User-Agent, or says nothing', () => {
    expect(describeBrowser('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0')).to.equal('Firefox 121 on Windows');
    expect(describeBrowser('curl/8.0')).to.equal(null);
    expect(describeBrowser(undefined)).to.equal(null);
  });

  it('ignores codes of the wrong shape, bots, and updates without a message', () => {
    expect((parseUpdate(update(`/start ${'a'.repeat(65)}`)).input as StartCommand).code).to.equal(null);
    expect((parseUpdate(update('/start a*b')).input as StartCommand).code).to.equal(null);
    expect(parseUpdate(update('/start abc', { id: 42, is_bot: true })).input).to.equal(null);
    expect(parseUpdate({ update_id: 1 }).input).to.equal(null);
    expect(parseUpdate('nonsense')).to.deep.equal({ updateId: null, input: null });
  });

  it('expires a request at exactly five minutes', () => {
    const expiresAt = new Date('2026-01-01T00:05:00Z');
    expect(visibleStatus({ status: 'pending', expiresAt }, new Date('2026-01-01T00:04:59.999Z'))).to.equal('pending');
    expect(visibleStatus({ status: 'pending', expiresAt }, expiresAt)).to.equal('expired');
    expect(visibleStatus({ status: 'confirmed', expiresAt }, expiresAt)).to.equal('expired');
    expect(visibleStatus({ status: 'cancelled', expiresAt }, expiresAt)).to.equal('cancelled');
  });

  it('makes unguessable codes and session ids of the allowed shapes', () => {
    const codes = new Set(Array.from({ length: 100 }, () => newLoginCode()));
    expect(codes.size).to.equal(100);
    for (const code of codes) expect(code).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(newSessionId()).to.match(SESSION_ID_PATTERN);
    expect(botUrlOf('pilot_signin_bot', 'abc')).to.equal('https://t.me/pilot_signin_bot?start=abc');
  });

  it('compares secrets of any length in constant time', () => {
    expect(constantTimeEqual('secret', 'secret')).to.equal(true);
    expect(constantTimeEqual('secret', 'secreT')).to.equal(false);
    expect(constantTimeEqual('', 'secret')).to.equal(false);
  });
});
