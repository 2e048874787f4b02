/**
 * The create form: SPEC.md's limits checked while typing (counters and hints), a live preview rendered the
 * way a publisher must, and the server's 422 field errors shown next to their fields.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useSafeMutation } from '../hooks/safe-mutation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError, apiBody, type FieldError } from '../api';
import { CreativePreview } from '../components/CreativePreview';
import { DraftRestoredNotice } from '../components/DraftRestoredNotice';
import { ErrorMessage } from '../components/ErrorMessage';
import { Field } from '../components/Field';
import { useFocusFirstInvalid } from '../hooks/focus-invalid';
import { useFormDraft } from '../hooks/form-draft';
import { usePageTitle } from '../hooks/page-title';
import { languageChoices } from '../languages';
import { Combobox } from '../components/Combobox';
import { LIMITS, counterOf, creativeTextHint, httpsUrlHint } from '../limits';
import type { Campaign, Format } from '../types';

interface Draft {
  name: string;
  format: Format;
  title: string;
  text: string;
  destinationUrl: string;
  buttonText: string;
  imageUrl: string;
  language: string;
}

const EMPTY: Draft = { name: '', format: 'bot', title: '', text: '', destinationUrl: '', buttonText: '', imageUrl: '', language: 'en' };
const FIELDS = new Set(Object.keys(EMPTY));
const LANGUAGE_CHOICES = languageChoices().map((language) => ({ value: language.code, label: `${language.label} (${language.code})` }));

function hintsOf(draft: Draft): Partial<Record<keyof Draft, string | null>> {
  return {
    name: creativeTextHint(draft.name, LIMITS.name),
    title: creativeTextHint(draft.title, LIMITS.title),
    text: creativeTextHint(draft.text, LIMITS.text),
    buttonText: creativeTextHint(draft.buttonText, LIMITS.buttonText),
    destinationUrl: httpsUrlHint(draft.destinationUrl, true),
    imageUrl: httpsUrlHint(draft.imageUrl, false),
  };
}

export function CampaignCreatePage() {
  const [params] = useSearchParams();
  const replaces = params.get('replaces');
  const navigate = useNavigate();
  const client = useQueryClient();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const restored = useFormDraft(`campaign-create${replaces ? `-${replaces}` : ''}`, draft, EMPTY, setDraft);
  const form = useRef<HTMLFormElement>(null);
  const focusFirstInvalid = useFocusFirstInvalid(form);
  usePageTitle(replaces ? `Replacement draft for #${replaces}` : 'New campaign');
  const original = useQuery({
    queryKey: ['campaign', replaces],
    enabled: Boolean(replaces),
    queryFn: () => apiBody<Campaign>(`/api/workspace/campaigns/${replaces}`),
  });
  useEffect(() => {
    const source = original.data;
    // What the person typed before their session ended wins over the content it started from.
    if (!source || restored) return;
    setDraft({
      name: source.name,
      format: source.format,
      title: source.title,
      text: source.text,
      destinationUrl: source.destinationUrl,
      buttonText: source.buttonText,
      imageUrl: source.imageUrl ?? '',
      language: source.language,
    });
  }, [original.data, restored]);

  const create = useSafeMutation({
    mutationFn: (body: Record<string, unknown>) => apiBody<Campaign>('/api/workspace/campaigns', { method: 'POST', body }),
    onSuccess: (campaign) => {
      void client.invalidateQueries({ queryKey: ['campaigns'] });
      navigate(`/workspace/campaigns/${campaign.id}`);
    },
    onError: () => focusFirstInvalid(),
  });
  const serverErrors: FieldError[] = create.error instanceof ApiError ? create.error.errors : [];
  const errorsFor = (field: string) => serverErrors.filter((error) => error.field === field);
  const otherErrors = serverErrors.filter((error) => !FIELDS.has(error.field));
  const hints = hintsOf(draft);
  const hintFor = (field: keyof Draft) => (touched.has(field) ? (hints[field] ?? null) : null);
  const blocking = Object.values(hints).some(Boolean);

  const change = (field: keyof Draft) => (event: { target: { value: string } }) => {
    setDraft({ ...draft, [field]: event.target.value });
    setTouched(new Set(touched).add(field));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(new Set(Object.keys(EMPTY)));
    if (blocking) {
      focusFirstInvalid();
      return;
    }
    const body: Record<string, unknown> = { ...draft };
    if (!draft.imageUrl) delete body.imageUrl;
    if (replaces) body.replaces = Number(replaces);
    create.mutate(body);
  };

  return (
    <section>
      <h1>{replaces ? `Replacement draft for campaign #${replaces}` : 'New campaign'}</h1>
      <p className="help">
        Creatives cannot be edited after saving. To change one, create a replacement draft and submit it for review.
      </p>
      <DraftRestoredNotice shown={restored} />
      <ErrorMessage error={original.error} />
      <div className="editor">
        <form ref={form} onSubmit={submit} noValidate aria-label="Campaign">
          <Field label="Internal name" hint={hintFor('name')} counter={counterOf(draft.name, LIMITS.name.max)} serverErrors={errorsFor('name')}>
            {(props) => <input {...props} name="name" dir="auto" value={draft.name} onChange={change('name')} />}
          </Field>
          <Field label="Format" serverErrors={errorsFor('format')} help="Where the creative is sent: a bot's chats or a channel.">
            {(props) => (
              <select {...props} name="format" value={draft.format} onChange={change('format')}>
                <option value="bot">Bot</option>
                <option value="channel">Channel</option>
              </select>
            )}
          </Field>
          <Field label="Language" serverErrors={errorsFor('language')} help="Type a language's name or code.">
            {(props) => (
              <Combobox
                inputProps={props}
                value={draft.language}
                valueLabel={LANGUAGE_CHOICES.find((choice) => choice.value === draft.language)?.label ?? draft.language}
                choices={LANGUAGE_CHOICES}
                onChange={(language) => setDraft((before) => ({ ...before, language }))}
                testId="language-picker"
              />
            )}
          </Field>
          <Field label="Title" hint={hintFor('title')} counter={counterOf(draft.title, LIMITS.title.max)} serverErrors={errorsFor('title')}>
            {(props) => <input {...props} name="title" dir="auto" value={draft.title} onChange={change('title')} />}
          </Field>
          <Field
            label="Message"
            hint={hintFor('text')}
            counter={counterOf(draft.text, LIMITS.text.max)}
            serverErrors={errorsFor('text')}
            help="Plain text; it is never treated as markup."
          >
            {(props) => <textarea {...props} name="text" dir="auto" rows={6} value={draft.text} onChange={change('text')} />}
          </Field>
          <Field
            label="Button label"
            hint={hintFor('buttonText')}
            counter={counterOf(draft.buttonText, LIMITS.buttonText.max)}
            serverErrors={errorsFor('buttonText')}
          >
            {(props) => <input {...props} name="buttonText" dir="auto" value={draft.buttonText} onChange={change('buttonText')} />}
          </Field>
          <Field
            label="Destination (https)"
            hint={hintFor('destinationUrl')}
            serverErrors={errorsFor('destinationUrl')}
            help="Where the button leads; https, without a user name or password."
          >
            {(props) => (
              <input {...props} name="destinationUrl" type="url" inputMode="url" value={draft.destinationUrl} onChange={change('destinationUrl')} />
            )}
          </Field>
          <Field label="Image address (optional, https)" hint={hintFor('imageUrl')} serverErrors={errorsFor('imageUrl')} help="Stored as a link; never uploaded.">
            {(props) => <input {...props} name="imageUrl" type="url" inputMode="url" value={draft.imageUrl} onChange={change('imageUrl')} />}
          </Field>
          {otherErrors.map((error) => (
            <p key={`${error.field}:${error.code}`} className="error" role="alert">
              {error.field === '(body)' ? error.message : `${error.field}: ${error.message}`}
            </p>
          ))}
          {create.error && !(create.error instanceof ApiError && create.error.status === 422) ? <ErrorMessage error={create.error} /> : null}
          {create.error instanceof ApiError && create.error.status === 422 ? (
            <p className="error" role="alert">
              Some fields need changes; see the messages next to them.
            </p>
          ) : null}
          {blocking && touched.size === FIELDS.size ? (
            <p className="error" role="alert">
              Please fix the highlighted fields.
            </p>
          ) : null}
          <button type="submit" className="button" disabled={create.isPending}>
            Save draft
          </button>
        </form>
        <div className="preview">
          <h2>Preview</h2>
          <CreativePreview {...draft} />
        </div>
      </div>
    </section>
  );
}
