import { type Candidate, Rank } from '../spans.ts';
import { looksRandom } from './entropy.ts';

/** `scheme://user:password@host`: the password alone is the secret (the user may be a role name). */
const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]*:([^\s@/'"]+)@[\w.-]/gi;

/** A field name's words: `DB_PASSWORD`, `dbPassword` and `db-password` are all [db, password]. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The last word names a password: its value is one, whatever it looks like. */
const passwordWords = new Set(['pass', 'password', 'passwd', 'passphrase', 'pwd']);
/** Words that name a secret: the value is one when it also looks random. */
const secretWords = new Set([
  'secret',
  'token',
  'apikey',
  'key',
  'auth',
  'credential',
  'credentials',
  'salt',
]);

function fieldKind(name: string): 'password' | 'secret' | undefined {
  const words = nameWords(name);
  const last = words.at(-1);
  if (last && passwordWords.has(last)) return 'password';
  // Any word will do (SECRET_KEY_BASE, AWS_ACCESS_KEY_ID): the value must also look random.
  return words.some((w) => secretWords.has(w)) ? 'secret' : undefined;
}

/**
 * `name = value`, `name: value`, `"name": "value"`, `--name=value`, `name='value'`: a field
 * name, optional closing quote, `=` or `:`, then the value, quoted or up to the next space,
 * comma or closing bracket.
 */
const ASSIGNMENT =
  /([A-Za-z_][\w.-]*)["']?[ \t]*(?:=|:(?!\/\/))[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|`([^`\n]*)`|([^\s"'`,;)}\]]+))/g;

/** A password said in prose: "the admin password is Kx!7vogt2291". */
const PASSWORD_IN_PROSE = /\bpass(?:word|phrase)\s+(?:is|was)\s+([^\s,;"'`]+?)(?=[\s,;]|[.!?]?$|[.!?]\s)/gim;

/** Values that stand for a secret without being one: references, placeholders, empty. */
function isPlaceholder(value: string): boolean {
  return (
    value.length < 4 ||
    /^(?:\$\{.*\}|\$\(.*\)|\$[A-Z_][A-Z0-9_]*|\{\{.*\}\}|%\(.*\)s|<[^>]*>|\[[^\]]*\]|\*+|x+|\.+|null|none|true|false|undefined|changeme|password|secret|redacted|example|placeholder)$/i.test(
      value,
    ) ||
    /^(?:https?|file):\/\//i.test(value) ||
    /^\{[A-Za-z_]\w*\}$/.test(value)
  );
}

/** Numbers, sizes, durations and booleans in config are settings, not passwords. */
function isSetting(value: string): boolean {
  return /^[\d.:]+(?:ms|s|m|h|d|kb|mb|gb|mi|gi)?$/i.test(value);
}

/**
 * Credentials in config, code and logs: the password of a URL; the value of a field named like a
 * password (any value that is not a placeholder or a plain setting); the value of a field named
 * like a key or token when it also looks random (see looksRandom); a bearer token.
 */
export function findCredentials(text: string): Candidate[] {
  const out: Candidate[] = [];
  const push = (start: number, value: string, rank: number = Rank.credential) =>
    out.push({ start, end: start + value.length, bucket: 'SECRET', rank });

  for (const m of text.matchAll(URL_CREDENTIALS)) {
    const password = m[1]!;
    if (isPlaceholder(password)) continue;
    // A URL's syntax says this is the password: as sure as a fixed format.
    push(m.index + m[0].length - 2 - password.length, password, Rank.format);
  }
  const assignment = new RegExp(ASSIGNMENT.source, 'g');
  for (let m = assignment.exec(text); m; m = assignment.exec(text)) {
    const value = m[2] ?? m[3] ?? m[4] ?? m[5] ?? '';
    const valueStart = m.index + m[0].lastIndexOf(value);
    const kind = fieldKind(m[1]!);
    const keep =
      kind !== undefined &&
      !isPlaceholder(value) &&
      !/[{}]/.test(value) &&
      (kind === 'password' ? !isSetting(value) && !value.includes('://') : looksRandom(value));
    if (keep) push(valueStart, value);
    // A value that is not a secret may hold the next field ("text: DB_PASSWORD=x"): look inside it.
    else assignment.lastIndex = Math.max(valueStart, m.index + 1);
  }
  for (const m of text.matchAll(PASSWORD_IN_PROSE)) {
    const value = m[1]!;
    if (isPlaceholder(value) || !/\d|[^\w]/.test(value)) continue;
    push(m.index + m[0].lastIndexOf(value), value);
  }
  for (const m of text.matchAll(/\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)/g)) {
    if (looksRandom(m[1]!)) push(m.index + m[0].length - m[1]!.length, m[1]!);
  }
  return out;
}
