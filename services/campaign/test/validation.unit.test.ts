import { expect } from 'chai';
import { graphemeLength } from '@pilot/contracts';
import { validateCreative, validateRejection } from '../src/domain/validation';

const valid = {
  name: 'Spring sale',
  format: 'bot',
  title: 'Fresh tea',
  text: 'Line one\nLine two',
  destinationUrl: 'https://example.com/landing?x=1',
  buttonText: 'Open',
  imageUrl: 'https://cdn.example.com/a.png',
  language: 'en',
};

function errorsOf(body: unknown) {
  const result = validateCreative(body);
  return result.ok ? [] : result.errors;
}

function fieldCodes(body: unknown): string[] {
  return errorsOf(body).map((error) => `${error.field}:${error.code}`);
}

const FAMILY = '👨‍👩‍👧‍👦'; // one grapheme, seven code points, 11 UTF-16 code units
const FAMILY_OF_THREE = '👨‍👩‍👧'; // one grapheme, 8 UTF-16 code units: the most a character may take at a limit
const FLAG = '🇹🇷';
const COMBINING_MARK = '\u0301';

describe('campaign creative validation', () => {
  it('accepts a complete creative and keeps exactly the inputs', () => {
    const result = validateCreative(valid);
    expect(result.ok).to.equal(true);
    if (result.ok) expect(result.value).to.deep.equal({ ...valid, replaces: null });
  });

  it('counts an emoji with joiners or a flag as one character', () => {
    expect(graphemeLength(FAMILY)).to.equal(1);
    expect(graphemeLength(FLAG)).to.equal(1);
    expect(graphemeLength('e\u0301')).to.equal(1);
    expect(graphemeLength('')).to.equal(0);
  });

  for (const [field, max] of [
    ['name', 100],
    ['title', 100],
    ['text', 700],
    ['buttonText', 32],
  ] as const) {
    describe(`${field} (1 to ${max} characters)`, () => {
      it('refuses 0 characters with too_short', () => {
        expect(fieldCodes({ ...valid, [field]: '' })).to.deep.equal([`${field}:too_short`]);
      });
      it('accepts 1 character', () => {
        expect(fieldCodes({ ...valid, [field]: 'a' })).to.deep.equal([]);
      });
      it(`accepts ${max} characters`, () => {
        expect(fieldCodes({ ...valid, [field]: 'a'.repeat(max) })).to.deep.equal([]);
      });
      it(`refuses ${max + 1} characters with too_long`, () => {
        expect(fieldCodes({ ...valid, [field]: 'a'.repeat(max + 1) })).to.deep.equal([`${field}:too_long`]);
      });
      it(`accepts ${max} emoji (many more code units) and refuses ${max + 1}`, () => {
        expect(fieldCodes({ ...valid, [field]: FAMILY_OF_THREE.repeat(max) })).to.deep.equal([]);
        expect(fieldCodes({ ...valid, [field]: FAMILY_OF_THREE.repeat(max + 1) })).to.deep.equal([`${field}:too_long`]);
      });
      it(`refuses one character carrying 20,000 combining marks with too_long_encoded, and caps the UTF-16 length at ${max * 8}`, () => {
        expect(fieldCodes({ ...valid, [field]: `a${COMBINING_MARK.repeat(20_000)}` })).to.deep.equal([`${field}:too_long_encoded`]);
        expect(fieldCodes({ ...valid, [field]: `a${COMBINING_MARK.repeat(max * 8 - 1)}` })).to.deep.equal([]);
        expect(fieldCodes({ ...valid, [field]: `a${COMBINING_MARK.repeat(max * 8)}` })).to.deep.equal([`${field}:too_long_encoded`]);
        const message = errorsOf({ ...valid, [field]: `a${COMBINING_MARK.repeat(max * 8)}` })[0]?.message;
        expect(message).to.contain(`at most ${max * 8} UTF-16 code units`);
      });
      it('refuses a missing value with required and a number with invalid_type', () => {
        const { [field]: _omitted, ...rest } = valid;
        expect(fieldCodes(rest)).to.deep.equal([`${field}:required`]);
        expect(fieldCodes({ ...valid, [field]: 5 })).to.deep.equal([`${field}:invalid_type`]);
      });
      it('refuses only spaces with blank and control characters with invalid_characters', () => {
        expect(fieldCodes({ ...valid, [field]: '   ' })).to.deep.equal([`${field}:blank`]);
        expect(fieldCodes({ ...valid, [field]: 'a\u0000b' })).to.deep.equal([`${field}:invalid_characters`]);
      });
    });
  }

  it('allows line breaks in the body but not in single-line fields', () => {
    expect(fieldCodes({ ...valid, text: 'a\nb\tc' })).to.deep.equal([]);
    expect(fieldCodes({ ...valid, title: 'a\nb', buttonText: 'x\ny', name: 'n\rm' })).to.have.members([
      'title:invalid_characters',
      'buttonText:invalid_characters',
      'name:invalid_characters',
    ]);
  });

  it('accepts the formats bot and channel and refuses video, task and rewarded', () => {
    expect(fieldCodes({ ...valid, format: 'channel' })).to.deep.equal([]);
    for (const format of ['video', 'task', 'rewarded', 'Bot', '', 1]) {
      expect(fieldCodes({ ...valid, format })).to.deep.equal(['format:unsupported_format']);
    }
  });

  it('accepts a lowercase ISO 639-1 code or all and refuses anything else', () => {
    for (const language of ['en', 'tr', 'ru', 'ar', 'zh', 'all']) expect(fieldCodes({ ...valid, language })).to.deep.equal([]);
    for (const language of ['EN', 'eng', 'xx', 'e', '', 'ALL', 'en-US', 'qq']) {
      expect(fieldCodes({ ...valid, language }), language).to.deep.equal(['language:invalid_language']);
    }
    expect(fieldCodes({ ...valid, language: 7 })).to.deep.equal(['language:invalid_type']);
  });

  it('treats a missing, null or empty image as no image', () => {
    for (const imageUrl of [undefined, null, '']) {
      const result = validateCreative({ ...valid, imageUrl });
      expect(result.ok).to.equal(true);
      if (result.ok) expect(result.value.imageUrl).to.equal(null);
    }
  });

  it('accepts replaces as a positive integer and refuses anything else', () => {
    const result = validateCreative({ ...valid, replaces: 12 });
    expect(result.ok && result.value.replaces).to.equal(12);
    for (const replaces of [0, -1, 1.5, '12']) expect(fieldCodes({ ...valid, replaces })).to.deep.equal(['replaces:invalid_type']);
  });

  it('lists every failing field at once', () => {
    const codes = fieldCodes({ name: '', format: 'video', title: 'a'.repeat(101), text: '', destinationUrl: 'http://x.com', buttonText: 'b'.repeat(33), imageUrl: 'https://u:p@x.com/i.png', language: 'xx', extra: 1 });
    expect(codes).to.have.members([
      'extra:unknown_field',
      'name:too_short',
      'title:too_long',
      'text:too_short',
      'buttonText:too_long',
      'format:unsupported_format',
      'language:invalid_language',
      'destinationUrl:https_required',
      'imageUrl:credentials_not_allowed',
    ]);
    for (const error of errorsOf({})) expect(error.message).to.be.a('string').and.not.empty;
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'x', 3]) expect(fieldCodes(body)).to.deep.equal(['(body):invalid_type']);
  });
});

describe('campaign URL validation (destination and image)', () => {
  const code = (value: unknown) => errorsOf({ ...valid, destinationUrl: value }).find((error) => error.field === 'destinationUrl')?.code ?? null;

  it('accepts https URLs with paths, queries, ports and international hosts', () => {
    for (const url of ['https://example.com', 'https://example.com:8443/a/b?c=d#e', 'https://xn--80ak6aa92e.com/', 'https://пример.рф/путь']) {
      expect(code(url), url).to.equal(null);
    }
  });

  it('refuses other schemes with https_required', () => {
    for (const url of ['http://example.com', 'javascript:alert(1)', 'ftp://example.com', 'data:text/html,x', '//example.com', 'example.com']) {
      expect(code(url), url).to.equal('https_required');
    }
  });

  it('refuses embedded credentials', () => {
    for (const url of ['https://user:pass@example.com', 'https://user@example.com', 'https://@example.com', 'https://:@example.com/x']) {
      expect(code(url), url).to.equal('credentials_not_allowed');
    }
  });

  it('refuses spaces, control characters and backslashes anywhere', () => {
    for (const url of ['https://exa mple.com', 'https://example.com/a b', 'https://example.com/\n', 'https:\\\\example.com', 'https://example.com\u0000', ' https://example.com']) {
      expect(code(url), JSON.stringify(url)).to.equal('invalid_url');
    }
  });

  it('refuses URLs without a valid host or longer than 2048 characters', () => {
    expect(code('https://')).to.equal('invalid_url');
    expect(code('https://..com')).to.equal('invalid_url');
    expect(code(`https://example.com/${'a'.repeat(2048)}`)).to.equal('too_long');
  });

  it('refuses IP literals in every spelling the URL parser normalises, with ip_address_not_allowed', () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://2130706433/',
      'https://0x7f.1/',
      'https://0177.0.0.1/',
      'https://127.1/',
      'https://0/',
      'https://10.0.0.8/',
      'https://172.16.3.4/',
      'https://192.168.1.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://8.8.8.8/',
      'https://[::1]/',
      'https://[::]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[fd00:ec2::254]/',
      'https://[fc00::1]/',
      'https://[fe80::1]/',
      'https://[2001:db8::1]:8443/x',
    ]) {
      expect(code(url), url).to.equal('ip_address_not_allowed');
    }
  });

  it('refuses localhost, single-label and internal names with private_host', () => {
    for (const url of [
      'https://localhost/',
      'https://LOCALHOST./',
      'https://api.localhost/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://metadata/',
      'https://intranet/',
      'https://printer.local/',
      'https://router.home.arpa/',
    ]) {
      expect(code(url), url).to.equal('private_host');
    }
  });

  it('refuses a private image URL as well as a private destination', () => {
    expect(fieldCodes({ ...valid, destinationUrl: 'https://[::1]/', imageUrl: 'https://169.254.169.254/i.png' })).to.have.members([
      'destinationUrl:ip_address_not_allowed',
      'imageUrl:ip_address_not_allowed',
    ]);
  });

  it('refuses a missing or non-string URL', () => {
    expect(code(undefined)).to.equal('required');
    expect(code('')).to.equal('required');
    expect(code(42)).to.equal('invalid_type');
  });
});

describe('rejection reason', () => {
  it('accepts 1 and 500 characters and refuses 0 and 501', () => {
    expect(validateRejection({ reason: 'x' }).ok).to.equal(true);
    expect(validateRejection({ reason: FAMILY_OF_THREE.repeat(500) }).ok).to.equal(true);
    const marks = validateRejection({ reason: `x${COMBINING_MARK.repeat(4000)}` });
    expect(marks.ok ? [] : marks.errors.map((error) => error.code)).to.deep.equal(['too_long_encoded']);
    const empty = validateRejection({ reason: '' });
    expect(empty.ok ? [] : empty.errors.map((error) => error.code)).to.deep.equal(['too_short']);
    const long = validateRejection({ reason: 'x'.repeat(501) });
    expect(long.ok ? [] : long.errors.map((error) => error.code)).to.deep.equal(['too_long']);
  });

  it('refuses a missing reason or body', () => {
    const missing = validateRejection({});
    expect(missing.ok ? [] : missing.errors.map((error) => `${error.field}:${error.code}`)).to.deep.equal(['reason:required']);
    expect(validateRejection(undefined).ok).to.equal(false);
  });
});
