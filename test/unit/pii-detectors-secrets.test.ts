import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCredentials } from '../../src/transform/pii/detectors/credentials.ts';
import { isEncodedText, looksRandom, shannonEntropy } from '../../src/transform/pii/detectors/entropy.ts';
import { findJwts } from '../../src/transform/pii/detectors/jwt.ts';
import { findPrivateKeys } from '../../src/transform/pii/detectors/private-key.ts';
import { findSecretFormats } from '../../src/transform/pii/detectors/secret-formats.ts';
import { isStandIn } from '../../src/transform/pii/detectors/stand-ins.ts';
import { ALNUM, HEX, seeded, shown } from '../helpers/pii.ts';

/**
 * The SECRET detectors (README, PII redaction): vendor key formats, JWTs whose header decodes,
 * PEM and OpenSSH private-key blocks, the password of a URL, values of fields named like
 * passwords, values of fields named like keys when they also look random. Every key is drawn
 * here from the vendor's alphabet, so none is a real one.
 */

const rand = seeded(71);
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const BASE64URL = `${ALNUM}-_`;
/** A password as sites make people choose them: letters, a digit and a symbol, ending in a letter or digit. */
const password = () =>
  `${rand.from(ALNUM, 5)}${rand.digits(1)}${rand.pick(['!', '%', '^', '*', '-', '_'])}${rand.from(ALNUM, 5)}`;
const b64url = (value: string | Uint8Array) => Buffer.from(value).toString('base64url');

describe('vendor key formats', () => {
  const keys: [string, () => string][] = [
    ['AWS access key id', () => `AKIA${rand.from(UPPER_DIGITS, 16)}`],
    ['AWS temporary key id', () => `ASIA${rand.from(UPPER_DIGITS, 16)}`],
    ['GitHub classic token', () => `ghp_${rand.from(ALNUM, 36)}`],
    ['GitHub fine-grained token', () => `github_pat_${rand.from(ALNUM, 22)}_${rand.from(ALNUM, 59)}`],
    ['GitLab token', () => `glpat-${rand.from(BASE64URL, 20)}`],
    ['Slack bot token', () => `xoxb-${rand.digits(11)}-${rand.digits(12)}-${rand.from(ALNUM, 24)}`],
    ['Stripe secret key', () => `sk_live_${rand.from(ALNUM, 24)}`],
    ['Stripe restricted key', () => `rk_test_${rand.from(ALNUM, 30)}`],
    ['Stripe webhook secret', () => `whsec_${rand.from(ALNUM, 32)}`],
    ['Google API key', () => `AIza${rand.from(BASE64URL, 35)}`],
    ['OpenAI project key', () => `sk-proj-${rand.from(ALNUM, 40)}`],
    ['Anthropic key', () => `sk-ant-api03-${rand.from(ALNUM, 90)}`],
    ['SendGrid key', () => `SG.${rand.from(ALNUM, 22)}.${rand.from(ALNUM, 43)}`],
    ['npm token', () => `npm_${rand.from(ALNUM, 36)}`],
    ['Hugging Face token', () => `hf_${rand.from(ALNUM, 34)}`],
    ['DigitalOcean token', () => `dop_v1_${rand.from(HEX, 64)}`],
    ['Shopify token', () => `shpat_${rand.from(HEX, 32)}`],
    ['Twilio API key', () => `SK${rand.from(HEX, 32)}`],
  ];

  it('finds a generated key of each vendor, in config, code and prose', () => {
    for (const [vendor, make] of keys)
      for (let i = 0; i < 3; i++) {
        const key = make();
        for (const text of [`KEY=${key}\n`, `client = Client("${key}")`, `rotate ${key} today`])
          assert.deepEqual(shown(text, findSecretFormats(text)), [[key, 'SECRET']], `${vendor}: ${text}`);
      }
  });

  it('leaves keys one character short, in the wrong case, glued to a word, or written as filler', () => {
    for (const text of [
      `AKIA${rand.from(UPPER_DIGITS, 15)}`,
      `akia${rand.from(UPPER_DIGITS, 16)}`,
      `ghp_${rand.from(ALNUM, 35)}`,
      `myghp_${rand.from(ALNUM, 36)}`,
      `sk-${rand.from(ALNUM, 47)}`,
      `SK${rand.from(HEX, 33)}`,
      `sk_live_${'x'.repeat(24)}`,
      'AKIAEXAMPLEKEY123456',
      `ghp_your_token_here_${rand.from(ALNUM, 20)}`,
      `sk-proj-REPLACE_ME_${rand.from(ALNUM, 24)}`,
    ])
      assert.deepEqual(findSecretFormats(text), [], text);
  });
});

describe('stand-ins for keys', () => {
  it('takes filler, documentation values and instructions for stand-ins', () => {
    for (const value of [
      '000000',
      'sk_test_xxxxxxxxxxxx',
      '********',
      'AKIAEXAMPLE',
      'placeholder-token',
      'dummy_secret',
      'changeme',
      'change-me-now',
      'REPLACE_ME',
      'replace_with_real_key',
      '<redacted>',
      'your-api-key',
      'MY_SECRET_TOKEN',
      'yourPassword1',
    ])
      assert.equal(isStandIn(value), true, value);
  });

  it('takes no random key for one', () => {
    for (let i = 0; i < 50; i++) {
      const key = rand.from(ALNUM, 40);
      assert.equal(isStandIn(key), false, key);
    }
  });
});

describe('entropy', () => {
  it('measures bits per character', () => {
    assert.equal(shannonEntropy('aaaa'), 0);
    assert.equal(shannonEntropy('abab'), 1);
    assert.equal(shannonEntropy('abcd'), 2);
    assert.equal(shannonEntropy(HEX), 4);
    assert.equal(shannonEntropy(HEX.repeat(3)), 4);
  });

  it('reads random base64, base64url and long hex as random', () => {
    for (let i = 0; i < 20; i++) {
      for (const value of [
        rand.from(`${ALNUM}+/`, 24 + rand.int(40)),
        rand.from(BASE64URL, 20 + rand.int(40)),
        rand.from(HEX, 32 + rand.int(32)),
      ])
        assert.equal(looksRandom(value), true, value);
    }
  });

  it('does not read words, names, paths, short hex or text in base64 as random', () => {
    for (const value of [
      rand.from(ALNUM, 15),
      rand.from(HEX, 31),
      rand.digits(40),
      'correct-horse-battery-staple',
      'getUserAccountSettingsForRegion',
      'ORDER_SERVICE_BASE_URL_FALLBACK',
      `arn:aws:kms:eu-west-1:${rand.digits(12)}:key/${rand.from(HEX, 8)}`,
      `/var/lib/app/${rand.from(ALNUM, 20)}/config.yaml`,
      `${rand.from(ALNUM, 10)} ${rand.from(ALNUM, 10)}`,
      b64url('service-account:read-only'),
      `${b64url('{"typ":"test"}')}.${b64url('{"sub":"fixture"}')}.${b64url('signature')}`,
    ])
      assert.equal(looksRandom(value), false, value);
  });

  it('tells base64 of text from base64 of random bytes', () => {
    assert.equal(isEncodedText(`${b64url('hello there')}.${b64url('{}')}`), true);
    for (let i = 0; i < 20; i++) {
      const bytes = Uint8Array.from({ length: 12 + rand.int(20) }, () => rand.int(256));
      assert.equal(isEncodedText(b64url(bytes)), false, b64url(bytes));
    }
    assert.equal(isEncodedText('not base64!'), false);
  });
});

describe('JSON Web Tokens', () => {
  const token = (header: object) =>
    `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify({ sub: rand.digits(8), iat: 1_700_000_000 + rand.int(1e6) }))}.${rand.from(BASE64URL, 43)}`;

  it('finds tokens whose header names an algorithm, alone or after Bearer', () => {
    for (const alg of ['HS256', 'RS256', 'ES384', 'none']) {
      const jwt = token({ alg, typ: 'JWT' });
      for (const text of [jwt, `Authorization: Bearer ${jwt}`, `"id_token": "${jwt}",`])
        assert.deepEqual(shown(text, findJwts(text)), [[jwt, 'SECRET']], text);
    }
  });

  it('leaves three dotted parts whose header is no JSON or names no algorithm, and short signatures', () => {
    const short = token({ alg: 'HS256' }).replace(/\.[^.]+$/, `.${rand.from(BASE64URL, 9)}`);
    for (const text of [
      token({ typ: 'JWT' }),
      token({ alg: 256 }),
      `eyJ${rand.from(ALNUM, 20)}.eyJ${rand.from(ALNUM, 20)}.${rand.from(ALNUM, 30)}`,
      short,
    ])
      assert.deepEqual(findJwts(text), [], text);
  });
});

describe('private-key blocks', () => {
  const body = (prefix: string) =>
    Array.from({ length: 4 }, () => `${prefix}${rand.from(`${ALNUM}+/`, 64)}`).join('\n');
  const block = (label: string, prefix = '') =>
    `${prefix}-----BEGIN ${label}-----\n${body(prefix)}\n${prefix}-----END ${label}-----`;

  it('finds PEM and OpenSSH private keys from BEGIN to END, indented or commented', () => {
    for (const label of [
      'PRIVATE KEY',
      'RSA PRIVATE KEY',
      'EC PRIVATE KEY',
      'OPENSSH PRIVATE KEY',
      'ENCRYPTED PRIVATE KEY',
      'PGP PRIVATE KEY BLOCK',
    ])
      for (const prefix of ['', '    ', '# ']) {
        const key = block(label, prefix);
        const text = `tls:\n  key: |\n${key}\nnext: 1\n`;
        assert.deepEqual(shown(text, findPrivateKeys(text)), [[key.slice(prefix.length), 'SECRET']], label);
      }
  });

  it('leaves public keys, certificates, mismatched labels and a block never closed', () => {
    for (const text of [
      block('PUBLIC KEY'),
      block('CERTIFICATE'),
      block('RSA PRIVATE KEY').replace('END RSA', 'END EC'),
      block('PRIVATE KEY').replace(/-----END[^\n]*$/, ''),
    ])
      assert.deepEqual(findPrivateKeys(text), [], text.slice(0, 40));
  });
});

describe('credentials in config, code and logs', () => {
  it('takes the password alone from a URL', () => {
    for (let i = 0; i < 5; i++) {
      const pw = password();
      for (const url of [
        `postgres://app_rw:${pw}@db-${rand.digits(2)}.example.net:5432/main`,
        `redis://:${pw}@cache.example.org:6379`,
        `mongodb+srv://report:${pw}@cluster0.example.com/db`,
        `amqp://svc:${pw}@mq.internal`,
      ]) {
        const text = `url: ${url}\n`;
        assert.deepEqual(shown(text, findCredentials(text)), [[pw, 'SECRET']], text);
      }
    }
  });

  it('takes any value of a field named like a password, however the field is written', () => {
    for (let i = 0; i < 5; i++) {
      const pw = password();
      for (const text of [
        `DB_PASSWORD=${pw}\n`,
        `"password": "${pw}",`,
        `--admin-pass=${pw} --verbose`,
        `smtpPassword: '${pw}'`,
        `db-passwd = ${pw}`,
        `MAIL_PWD: "${pw}"`,
        `wifi_passphrase=${pw}`,
        `The admin password is ${pw}.`,
        `the vault passphrase was ${pw}, rotated since`,
      ])
        assert.deepEqual(shown(text, findCredentials(text)), [[pw, 'SECRET']], text);
    }
  });

  it('takes a key or token field, or a bearer token, only when its value looks random', () => {
    for (let i = 0; i < 5; i++) {
      const key = rand.from(ALNUM, 40);
      for (const text of [
        `SECRET_KEY_BASE=${key}`,
        `api_key: "${key}"`,
        `AWS_SECRET_ACCESS_KEY = ${key}`,
        `authToken: '${key}'`,
        `Authorization: Bearer ${key}`,
      ])
        assert.deepEqual(shown(text, findCredentials(text)), [[key, 'SECRET']], text);
    }
    for (const text of ['api_key: "internal"', 'SECRET_KEY_BASE=development', 'Bearer shorttoken'])
      assert.deepEqual(findCredentials(text), [], text);
  });

  it('leaves keys that are no secret, names and hashes of secrets, types, code and prose', () => {
    const key = rand.from(ALNUM, 40);
    for (const text of [
      `cache_key = ${key}`,
      `stripe_publishable_key=${key}`,
      `NEXT_PUBLIC_API_KEY=${key}`,
      `kms_key_id=${key}`,
      `secret_name: ${key}`,
      'token_ttl=3600',
      `password_hash=${key}`,
      `hashed_password: "${key}"`,
      'password: string;',
      'password = os.getenv("DB_PASSWORD")',
      'password: user.password,',
      'password: hashedPassword,',
      'password: !vault |',
      `PASSWORD=\${DB_PASSWORD}`,
      'password: "<your password>"',
      'password=changeme',
      'password: ********',
      'PASSWORD_MIN_LENGTH=12',
      'password: 30s',
      `image: \${DB_PASSWORD:?must be set}`,
      'Password: sent separately via Signal',
      'The password is banana.',
      'password was changed yesterday',
      'postgres://app:password@db.example.net/main',
      `postgres://app:\${DB_PASS}@db.example.net/main`,
      'url: https://example.com/login',
    ])
      assert.deepEqual(shown(text, findCredentials(text)), [], text);
  });
});
