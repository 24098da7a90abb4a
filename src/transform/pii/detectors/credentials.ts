import { type Candidate, Rank } from '../spans.ts';
import { looksRandom } from './entropy.ts';
import { isStandIn } from './stand-ins.ts';

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

/**
 * Words that say a key is no secret: public by design (a Stripe publishable key, NEXT_PUBLIC_*
 * variables, which are sent to every browser) or a key in the sense of an index (a cache,
 * partition or idempotency key, which names a record).
 */
const notSecretWords = new Set([
  'public',
  'publishable',
  'cache',
  'idempotency',
  'partition',
  'sort',
  'primary',
  'foreign',
  'object',
]);
/**
 * Last words that say the value names or locates a secret instead of holding it: `kms_key_id`,
 * `secret_name`, `token_url`, `api_key_header`, `secretKeyRef`, `token_ttl`.
 */
const pointerWords = new Set([
  'id',
  'ids',
  'arn',
  'name',
  'names',
  'ref',
  'path',
  'file',
  'url',
  'uri',
  'endpoint',
  'header',
  'type',
  'ttl',
  'expiry',
  'length',
  'version',
  'fingerprint',
  'thumbprint',
  'checksum',
  'hash',
  'digest',
]);
/** A password's hash is not the password: `hashed_password`, `password_digest`. */
const hashWords = new Set(['hash', 'hashed', 'digest']);

function fieldKind(name: string): 'password' | 'secret' | undefined {
  const words = nameWords(name);
  const last = words.at(-1);
  if (words.some((w) => hashWords.has(w))) return undefined;
  if (last && passwordWords.has(last)) return 'password';
  if (words.some((w) => notSecretWords.has(w)) || (last && pointerWords.has(last))) return undefined;
  // Any word will do (SECRET_KEY_BASE, AWS_SECRET_ACCESS_KEY): the value must also look random.
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

/** Type names a field is declared with (`password: string;`, `password: str = ""`). */
const TYPE_NAME =
  /^(?:string|str|String|text|Text|bytes|SecretStr|SecretString|SecureString|char|varchar|Password)$/;

/**
 * An unquoted value that is code, not a literal: a call or an index (`os.getenv(`,
 * `request.form[`), a path of names (`process.env.DB_PASSWORD`, `user.password`), a variable
 * or a type before a comma or semicolon (`password: hashedPassword,`), a YAML tag (`!vault`,
 * `!secret db_password`). Literals in code are quoted; letters-only names with dots or before
 * a `,` are how code refers to values, and passwords that validate carry a digit or a symbol.
 */
function isCodeReference(value: string, next: string): boolean {
  return (
    /[([]/.test(value) ||
    TYPE_NAME.test(value) ||
    /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+$/.test(value) ||
    (/^[A-Za-z_$][A-Za-z_$]*$/.test(value) && /^[ \t]*[,;)]/.test(next)) ||
    /^!{1,2}[A-Za-z][\w:.-]*$/.test(value)
  );
}

/**
 * A word of prose after a label, not a password: letters alone with more words after them on
 * the line ("Password: sent separately via Signal", "Password: reset by the user"), or a
 * number that counts something ("password is 2048 bits").
 */
function isProse(value: string, rest: string): boolean {
  return /^(?:[A-Za-z]+|\d+)$/.test(value) && /^[ \t]+\p{L}/u.test(rest);
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
    if (isPlaceholder(password) || isStandIn(password)) continue;
    // A URL's syntax says this is the password: as sure as a fixed format.
    push(m.index + m[0].length - 2 - password.length, password, Rank.format);
  }
  const assignment = new RegExp(ASSIGNMENT.source, 'g');
  for (let m = assignment.exec(text); m; m = assignment.exec(text)) {
    const value = m[2] ?? m[3] ?? m[4] ?? m[5] ?? '';
    const valueStart = m.index + m[0].lastIndexOf(value);
    const kind = fieldKind(m[1]!);
    const unquoted = m[5] !== undefined;
    const after = text.slice(valueStart + value.length, valueStart + value.length + 3);
    // `${DB_PASSWORD:?message}`: a shell expansion's error message, not a value.
    const expansion = text.slice(Math.max(0, m.index - 2), m.index) === '${' && value.startsWith('?');
    const keep =
      kind !== undefined &&
      !expansion &&
      !isPlaceholder(value) &&
      !isStandIn(value) &&
      !/[{}]/.test(value) &&
      !(unquoted && (isCodeReference(value, after) || isProse(value, after))) &&
      (kind === 'password' ? !isSetting(value) && !value.includes('://') : looksRandom(value));
    if (keep) push(valueStart, value);
    // A value that is not a secret may hold the next field ("text: DB_PASSWORD=x"): look inside it.
    else assignment.lastIndex = Math.max(valueStart, m.index + 1);
  }
  for (const m of text.matchAll(PASSWORD_IN_PROSE)) {
    const value = m[1]!;
    const rest = text.slice(m.index + m[0].length, m.index + m[0].length + 3);
    if (isPlaceholder(value) || isStandIn(value) || isProse(value, rest) || !/\d|[^\w]/.test(value)) continue;
    push(m.index + m[0].lastIndexOf(value), value);
  }
  for (const m of text.matchAll(/\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)/g)) {
    if (looksRandom(m[1]!)) push(m.index + m[0].length - m[1]!.length, m[1]!);
  }
  return out;
}
