import { OpenRedaction } from '@openredaction/openredaction';
import nlp from 'compromise';
import { SyncRedactor } from 'redact-pii';
import type { PiiBucket, PiiSpan } from '../../src/transform/pii/spans.ts';

/**
 * redact-pii returns text with placeholders, not offsets. Its placeholders are its own kind
 * names, so the spans are recovered by walking the output: text between placeholders is the
 * original's, found again from where the previous match ended.
 */
const redactPiiKinds: Record<string, PiiBucket | undefined> = {
  PERSON_NAME: 'PERSON',
  EMAIL_ADDRESS: 'EMAIL',
  PHONE_NUMBER: 'PHONE',
  STREET_ADDRESS: 'LOCATION',
  ZIPCODE: 'LOCATION',
  CREDIT_CARD_NUMBER: 'FINANCIAL',
  US_SOCIAL_SECURITY_NUMBER: 'FINANCIAL',
  // Its catch-all for runs of four or more digits: account numbers are what it is there for.
  DIGITS: 'FINANCIAL',
  PASSWORD: 'SECRET',
  CREDENTIALS: 'SECRET',
  USERNAME: undefined,
  IP_ADDRESS: undefined,
  URL: undefined,
};

const redactor = new SyncRedactor();
const placeholder = new RegExp(`\\b(${Object.keys(redactPiiKinds).join('|')})\\b`, 'g');

export function redactPiiSpans(text: string): PiiSpan[] {
  const output = redactor.redact(text);
  const spans: PiiSpan[] = [];
  let inOriginal = 0;
  let inOutput = 0;
  let pendingKind: string | undefined;
  let pendingStart = 0;
  const literal = (upTo: number) => {
    const piece = output.slice(inOutput, upTo);
    if (pendingKind !== undefined) {
      // The replaced text runs from where the placeholder stood to where the next literal is found.
      const at = piece === '' ? text.length : text.indexOf(piece, pendingStart);
      const end = at < 0 ? pendingStart : at;
      const bucket = redactPiiKinds[pendingKind];
      if (bucket && end > pendingStart) spans.push({ start: pendingStart, end, bucket });
      inOriginal = end + piece.length;
      pendingKind = undefined;
    } else inOriginal += piece.length;
  };
  for (const m of output.matchAll(placeholder)) {
    literal(m.index);
    pendingKind = m[1]!;
    pendingStart = inOriginal;
    inOutput = m.index + m[0].length;
  }
  literal(output.length);
  return spans;
}

/** OpenRedaction's kinds are many and specific (PHONE_UK_MOBILE, IBAN, ...): bucketed by their words. */
function openRedactionBucket(kind: string): PiiBucket | undefined {
  if (/EMAIL/.test(kind)) return 'EMAIL';
  if (/PHONE|MOBILE|FAX|TELEPHONE/.test(kind)) return 'PHONE';
  if (/NAME$|PERSON/.test(kind) && !/USER|DOMAIN|HOST/.test(kind)) return 'PERSON';
  if (/ADDRESS|POSTCODE|POSTAL|ZIP|CITY|LOCATION/.test(kind) && !/IP|MAC|EMAIL|CRYPTO|BITCOIN|ETH/.test(kind))
    return 'LOCATION';
  if (/CARD|IBAN|BANK|ACCOUNT|SSN|SORT_CODE|ROUTING|ITIN|TAX|BITCOIN|ETHEREUM|CRYPTO/.test(kind))
    return 'FINANCIAL';
  if (/KEY|TOKEN|SECRET|PASSWORD|JWT|CREDENTIAL/.test(kind)) return 'SECRET';
  return undefined;
}

const shield = new OpenRedaction();

export function openRedactionSpans(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const d of shield.detect(text).detections) {
    const bucket = openRedactionBucket(d.type);
    if (bucket) spans.push({ start: d.position[0], end: d.position[1], bucket });
  }
  return spans;
}

interface Located {
  offset: { start: number; length: number };
}

/**
 * compromise's own recognizer (its `people()` and `places()`), which ships its model on npm:
 * measured as the alternative to `aggressive` mode's rules, for PERSON and LOCATION only.
 */
export function compromiseSpans(text: string): PiiSpan[] {
  const doc = nlp(text);
  const spans = (found: Located[], bucket: PiiBucket) =>
    found.map((f) => ({ start: f.offset.start, end: f.offset.start + f.offset.length, bucket }));
  return [
    ...spans(doc.people().json({ offset: true }) as Located[], 'PERSON'),
    ...spans(doc.places().json({ offset: true }) as Located[], 'LOCATION'),
  ];
}
