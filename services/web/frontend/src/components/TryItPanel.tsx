/**
 * Next to the keys: when each key was last used, an example ad request and its answer, and a
 * "Send a test request" form that sends the platform's test key from the browser and shows the answer.
 */
import { useState, type FormEvent } from 'react';
import { exampleAnswer, exampleCommand, sendTestRequest, testKeyProblem, type TryAnswer } from '../try-request';
import type { Publisher } from '../types';
import { formatDateTime } from '../format';

function lastUse(at: string | null | undefined, createdAt: string | null | undefined): string {
  if (!createdAt) return 'no key';
  if (at === undefined) return 'not known right now';
  if (at === null) return 'not used yet';
  return formatDateTime(at);
}

const STATUS_WORDS: Record<number, string> = {
  200: 'an ad',
  204: 'no ad available',
  400: 'refused: the request is malformed',
  401: 'refused: the key',
  429: 'over the limit',
  503: 'the service is unavailable',
};

export function TryItPanel({ publisher, freshTestKey }: { publisher: Publisher; freshTestKey: string | null }) {
  const base = publisher.apiBaseUrl ?? window.location.origin;
  // The page remounts this panel when a test key is made or hidden (its React key), so no effect copies it.
  const [key, setKey] = useState(freshTestKey ?? '');
  const [language, setLanguage] = useState('en');
  const [forced, setForced] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [answer, setAnswer] = useState<TryAnswer | null>(null);
  const [sending, setSending] = useState(false);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const refused = testKeyProblem(key);
    setProblem(refused);
    if (refused) return;
    setSending(true);
    try {
      setAnswer(await sendTestRequest(key, language.trim() || 'en', forced));
    } catch {
      setAnswer(null);
      setProblem('The service could not be reached. Check your connection and try again.');
    } finally {
      setSending(false);
    }
  };

  return (
    <section className="key-panel" data-testid="try-it" aria-labelledby="try-it-heading">
      <h2 id="try-it-heading">Try the network API</h2>
      <dl className="facts">
        <dt>Live key last used</dt>
        <dd data-testid="key-last-used">{lastUse(publisher.keyLastUsedAt, publisher.keyCreatedAt)}</dd>
        <dt>Test key last used</dt>
        <dd data-testid="test-key-last-used">{lastUse(publisher.testKeyLastUsedAt, publisher.testKeyCreatedAt)}</dd>
      </dl>
      <p className="help">Uses are noted to the minute, for ad requests.</p>
      <h3>Example request</h3>
      <pre className="example" tabIndex={0} aria-label="Example request">
        <code>{exampleCommand(base, 'en')}</code>
      </pre>
      <h3>Example answer (200)</h3>
      <pre className="example" tabIndex={0} aria-label="Example answer">
        <code>{exampleAnswer(base)}</code>
      </pre>
      <p className="help">When no ad is available the answer is 204 with no body; send the creative only on a 200, then confirm its delivery.</p>
      <h3>Send a test request</h3>
      <form className="filters" onSubmit={(event) => void send(event)} noValidate aria-label="Send a test request">
        <label>
          Test key
          <input
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={key}
            onChange={(event) => setKey(event.target.value)}
            aria-invalid={Boolean(problem)}
            aria-describedby="try-problem"
            data-testid="try-key"
            data-secret
          />
        </label>
        <label>
          Language
          <input value={language} onChange={(event) => setLanguage(event.target.value)} maxLength={8} data-testid="try-language" />
        </label>
        <label>
          Answer
          <select value={forced} onChange={(event) => setForced(event.target.value)} data-testid="try-forced">
            <option value="">As usual (the test ad)</option>
            <option value="204">Force 204 (no ad)</option>
            <option value="429">Force 429 (over the limit)</option>
            <option value="503">Force 503 (unavailable)</option>
          </select>
        </label>
        <button type="submit" className="button" disabled={sending}>
          {sending ? 'Sending…' : 'Send a test request'}
        </button>
      </form>
      <p id="try-problem" className="error" role="alert" hidden={!problem}>
        {problem}
      </p>
      <p className="help">
        Only the test key is sent from this page: its requests answer the fixed test ad and are never counted.{' '}
        {publisher.testKeyCreatedAt ? 'Paste the test key you stored, or replace it above to get a new one.' : 'Create a test key above first.'}
      </p>
      <div aria-live="polite" data-testid="try-answer">
        {answer ? (
          <>
            <p>
              <strong>
                HTTP {answer.status}
                {STATUS_WORDS[answer.status] ? `: ${STATUS_WORDS[answer.status]}` : ''}
              </strong>
            </p>
            {answer.headers.length > 0 ? (
              <pre className="example" tabIndex={0} aria-label="Answer headers">
                <code>{answer.headers.map(([name, value]) => `${name}: ${value}`).join('\n')}</code>
              </pre>
            ) : null}
            {answer.body ? (
              <pre className="example" tabIndex={0} aria-label="Answer body" data-testid="try-body">
                <code>{answer.body}</code>
              </pre>
            ) : null}
          </>
        ) : null}
      </div>
    </section>
  );
}
