/**
 * Settings that are secrets: by convention every setting whose name ends in `_SECRET` (INTERNAL_SECRET,
 * TOKEN_SECRET, TELEGRAM_WEBHOOK_SECRET). Outside production they may keep their development defaults;
 * under NODE_ENV=production a secret is refused, naming the setting, when it is shorter than 32
 * characters, a development default, or a placeholder of the deployment examples
 * (deploy/compose.env.example, deploy/k8s/base/secrets.example.env, the local overlay's `local-only-*`).
 */
export const MIN_SECRET_LENGTH = 32;

const GENERATE_HINT = 'generate one with: openssl rand -hex 32';

/** What the examples, the development defaults and the docs put where a secret goes. */
const PLACEHOLDER_PATTERN = /change[-_ ]?me|placeholder|^local-only-|replace[-_ ]?(me|this)|your[-_ ]?secret|^\.\.\.$/i;

export function isSecretSettingName(name: string): boolean {
  return name.endsWith('_SECRET');
}

/** Why a production secret is weak, or null. `devDefaults` are the development defaults of the settings. */
export function weakSecretProblem(value: unknown, devDefaults: ReadonlySet<unknown> = new Set()): string | null {
  if (typeof value !== 'string') return null;
  if (devDefaults.has(value) || PLACEHOLDER_PATTERN.test(value)) {
    return `is a placeholder or development default, refused in production (${GENERATE_HINT})`;
  }
  if (value.length < MIN_SECRET_LENGTH) {
    return `is shorter than ${MIN_SECRET_LENGTH} characters, refused in production (${GENERATE_HINT})`;
  }
  return null;
}
