/**
 * The Python and Go snippets of docs/publishers.md (docs/snippets/serve_ad.{py,go}), run as a publisher
 * would run them against the whole system and the example's fake Bot API: a delivered ad lands in the
 * totals, a refused send is never confirmed, no ad sends nothing. The guide's copies must equal the files.
 * A language missing from the machine skips its runs, saying so; the copies are compared regardless.
 * The python-telegram-bot bot (docs/snippets/ptb_bot.py) runs with Debian's python3 and package, which
 * scripts/lib/ensure-python-telegram-bot.sh installs (PyPI is not reachable here): a missing package fails.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { startFakeBotApi, type FakeBotApi } from '../../examples/publisher-bot/src/fake-bot-api';
import { signedIn, type Browser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, type Campaign } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { REPO_ROOT } from './support/outside-project';

interface Totals {
  adRequests: number;
  confirmedDeliveries: number;
}

interface Snippet {
  language: string;
  file: string;
  fence: string;
  /** The interpreter or toolchain, and the arguments that run the file. */
  command: string;
  args: (file: string) => string[];
  env: NodeJS.ProcessEnv;
}

/** Debian's interpreter: the one python3-python-telegram-bot installs for. */
const DEBIAN_PYTHON = '/usr/bin/python3';
const PTB_BOT = { language: 'Python (python-telegram-bot)', file: 'docs/snippets/ptb_bot.py', fence: 'python' };

const SNIPPETS: Snippet[] = [
  { language: 'Python', file: 'docs/snippets/serve_ad.py', fence: 'python', command: 'python3', args: (file) => [file], env: {} },
  {
    language: 'Go',
    file: 'docs/snippets/serve_ad.go',
    fence: 'go',
    command: 'go',
    args: (file) => ['run', file],
    // The standard library only: no module download, no toolchain switch.
    env: { GOTOOLCHAIN: 'local', GOPROXY: 'off' },
  },
];

/** Whether the machine has `command` at all (ENOENT is the only reason to skip). */
function installed(command: string): boolean {
  return spawnSync(command, ['--version'], { stdio: 'ignore' }).error === undefined;
}

/** The code block the guide shows under `<!-- snippet: <file> ... -->`. */
function guideCopy(guide: string, snippet: Pick<Snippet, 'file' | 'fence'>): string {
  const marker = guide.indexOf(`<!-- snippet: ${snippet.file} `);
  expect(marker, `docs/publishers.md shows ${snippet.file}`).to.be.at.least(0);
  const open = `\`\`\`${snippet.fence}\n`;
  const start = guide.indexOf(open, marker);
  const end = guide.indexOf('\n```\n', start);
  expect(start, `a ${snippet.fence} block after the marker of ${snippet.file}`).to.be.above(marker);
  return guide.slice(start + open.length, end + 1);
}

describe('the Python and Go snippets of the publishers guide', function () {
  this.timeout(240_000);

  it('shows each snippet in docs/publishers.md exactly as the file the tests run', async () => {
    const guide = await readFile(join(REPO_ROOT, 'docs/publishers.md'), 'utf8');
    for (const snippet of [...SNIPPETS, PTB_BOT]) {
      expect(guideCopy(guide, snippet), `${snippet.file} and its copy in docs/publishers.md differ`).to.equal(await readFile(join(REPO_ROOT, snippet.file), 'utf8'));
    }
  });

  describe('against the running system', () => {
    let system: System;
    let owner: Browser;
    let campaign: Campaign;
    let key: string;
    let telegram: FakeBotApi;
    let chatId = 9100;

    const totals = async (): Promise<Totals> => (await owner.get<Totals>('/api/workspace/stats')).body;
    /** What a snippet is started with: the system's address and key, and the fake Bot API as Telegram. */
    const snippetEnv = (apiKey: string): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      PILOT_BASE_URL: system.baseUrl,
      PILOT_API_KEY: apiKey,
      BOT_TOKEN: '123456:TEST-token',
      TELEGRAM_API_ROOT: telegram.apiRoot,
    });

    before(async () => {
      system = await startSystem();
      const admin = await signedIn(system, ADMIN_ID);
      const advertiser = await signedIn(system, '7301');
      owner = await signedIn(system, '7302');
      campaign = await activeCampaign(advertiser, admin, { title: 'Learn <i>Go</i> & *Python*', text: 'No markup: <b>x</b> _y_', language: 'en' });
      key = (await approvedPublisher(system, owner, admin)).server.key;
      telegram = await startFakeBotApi();
      // The campaign is selectable before a snippet asks (this allocation is never confirmed).
      await waitFor(async () => (await fetch(`${system.baseUrl}/api/network/ad?language=en`, { headers: { authorization: `Bearer ${key}` } })).status === 200, {
        timeoutMs: 15_000,
        message: 'an ad to be served',
      });
    });

    beforeEach(() => {
      telegram.reset();
      chatId += 1;
    });

    after(async () => {
      await telegram?.stop();
      await system?.stop();
    });

    const run = (snippet: Snippet, languageCode: string): Promise<{ code: number; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        execFile(
          snippet.command,
          [...snippet.args(join(REPO_ROOT, snippet.file)), String(chatId), languageCode],
          {
            cwd: tmpdir(),
            timeout: 180_000,
            env: { ...snippetEnv(key), ...snippet.env },
          },
          (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });

    for (const snippet of SNIPPETS) {
      describe(snippet.language, () => {
        before(function () {
          if (!installed(snippet.command)) {
            console.warn(`      ${snippet.command} is not installed on this machine: the ${snippet.language} snippet is not run`);
            this.skip();
          }
        });

        it('sends the ad as plain text labelled Sponsored with click_url on the button, then confirms it into the totals', async () => {
          const before = await totals();
          const result = await run(snippet, 'en');
          expect(result, result.stderr).to.include({ code: 0 });
          expect(result.stdout.trim()).to.equal('delivered');

          const sends = telegram.sends();
          expect(sends.map((call) => call.method)).to.deep.equal(['sendMessage']);
          const payload = sends[0]?.payload ?? {};
          expect(payload.chat_id).to.equal(chatId);
          expect(payload.text).to.equal(`Sponsored\n${campaign.title}\n\n${campaign.text}`);
          expect(payload).to.not.have.property('parse_mode');
          const keyboard = (payload.reply_markup as { inline_keyboard: { text: string; url: string }[][] }).inline_keyboard;
          expect(keyboard).to.have.length(1);
          const button = keyboard[0]?.[0];
          expect(button?.text).to.equal(campaign.buttonText);
          expect(button?.url.startsWith(`${system.baseUrl}/api/network/click/`)).to.equal(true);

          await waitFor(async () => (await totals()).confirmedDeliveries === before.confirmedDeliveries + 1, {
            timeoutMs: 30_000,
            message: 'the confirmation to be counted',
          });
        });

        it('never confirms a send the platform refused', async () => {
          const before = await totals();
          telegram.failNext('sendMessage', 403, 'Forbidden: bot was blocked by the user');
          const result = await run(snippet, 'en');
          expect(result, result.stderr).to.include({ code: 0 });
          expect(result.stdout.trim()).to.equal('send_failed');
          const after = await waitFor(async () => {
            const now = await totals();
            return now.adRequests === before.adRequests + 1 ? now : null;
          }, { timeoutMs: 30_000, message: 'the allocation to be counted' });
          expect(after.confirmedDeliveries).to.equal(before.confirmedDeliveries);
        });

        it('sends nothing when no ad matches (204)', async () => {
          const result = await run(snippet, 'de');
          expect(result, result.stderr).to.include({ code: 0 });
          expect(result.stdout.trim()).to.equal('no_ad');
          expect(telegram.sends()).to.deep.equal([]);
        });
      });
    }

    describe(PTB_BOT.language, () => {
      let bot: ChildProcess | undefined;
      let output = '';

      /** The bot's log lines of its /ad handler (delivered, send_failed, no_ad) so far. */
      const outcomes = (): string[] => [...output.matchAll(/^ptb_bot INFO (delivered|no_ad)$|^ptb_bot WARNING (send_failed):/gm)].map((match) => match[1] ?? match[2] ?? '');

      before(async function () {
        if (!installed(DEBIAN_PYTHON)) {
          console.warn(`      ${DEBIAN_PYTHON} is not installed on this machine: the python-telegram-bot snippet is not run`);
          this.skip();
        }
        const probe = spawnSync(DEBIAN_PYTHON, ['-c', 'import telegram.ext'], { encoding: 'utf8' });
        expect(probe.status, `python-telegram-bot is missing: bash scripts/lib/ensure-python-telegram-bot.sh installs it\n${probe.stderr}`).to.equal(0);
        bot = spawn(DEBIAN_PYTHON, [join(REPO_ROOT, PTB_BOT.file)], {
          cwd: tmpdir(),
          env: snippetEnv(key),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        bot.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        bot.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        await waitFor(() => /^ptb_bot INFO polling$/m.test(output) && telegram.calls.some((call) => call.method === 'getUpdates'), {
          timeoutMs: 30_000,
          message: 'the python-telegram-bot bot to poll the fake Bot API',
        });
      });

      after(async () => {
        if (!bot || bot.exitCode !== null) return;
        const exited = new Promise((resolve) => bot?.once('exit', resolve));
        bot.kill('SIGTERM');
        const stopped = await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20_000))]);
        if (!stopped) bot.kill('SIGKILL');
      });

      /** A reader writes /ad in the simulated chat; resolves once the bot's handler logged its outcome. */
      const askForAd = async (languageCode: string): Promise<string> => {
        const seen = outcomes().length;
        telegram.say({ text: '/ad', chat_id: chatId, language_code: languageCode });
        return waitFor(() => outcomes()[seen] ?? null, { timeoutMs: 30_000, message: `the bot to answer /ad\n${output}` });
      };

      it('answers /ad in a chat with the ad as plain text labelled Sponsored and click_url on the button, then confirms it into the totals', async () => {
        const before = await totals();
        expect(await askForAd('en-US'), output).to.equal('delivered');
        const sends = telegram.sends();
        expect(sends.map((call) => call.method)).to.deep.equal(['sendMessage']);
        expect(sends[0]?.payload).to.not.have.property('parse_mode');
        const [line] = telegram.transcript(chatId).filter((entry) => entry.from === 'bot');
        expect(line?.text).to.equal(`Sponsored\n${campaign.title}\n\n${campaign.text}`);
        const button = (line?.reply_markup as { inline_keyboard: { text: string; url: string }[][] }).inline_keyboard[0]?.[0];
        expect(button?.text).to.equal(campaign.buttonText);
        expect(button?.url.startsWith(`${system.baseUrl}/api/network/click/`)).to.equal(true);
        await waitFor(async () => (await totals()).confirmedDeliveries === before.confirmedDeliveries + 1, { timeoutMs: 30_000, message: 'the confirmation to be counted' });
      });

      it('never confirms a send the platform refused, and sends nothing when no ad matches (204)', async () => {
        const before = await totals();
        telegram.failNext('sendMessage', 403, 'Forbidden: bot was blocked by the user');
        expect(await askForAd('en'), output).to.equal('send_failed');
        expect(await askForAd('de'), output).to.equal('no_ad');
        // The handler runs the updates in order: a confirmation of the refused send would come before this one.
        expect(await askForAd('en'), output).to.equal('delivered');
        expect(telegram.sends().map((call) => call.method)).to.deep.equal(['sendMessage', 'sendMessage']);
        const after = await waitFor(async () => {
          const now = await totals();
          return now.confirmedDeliveries > before.confirmedDeliveries && now.adRequests >= before.adRequests + 2 ? now : null;
        }, { timeoutMs: 30_000, message: 'the second ad to be confirmed' });
        expect(after.confirmedDeliveries).to.equal(before.confirmedDeliveries + 1);
        expect(after.adRequests).to.equal(before.adRequests + 2);
      });
    });
  });
});
