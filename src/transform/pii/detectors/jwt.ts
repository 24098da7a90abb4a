import { type Candidate, Rank } from '../spans.ts';

const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{10,}(?![\w-])/g;

/**
 * JSON Web Tokens (RFC 7519): three base64url parts whose first decodes to a JSON header
 * naming its algorithm. Three dotted base64 parts alone could be anything.
 */
export function findJwts(text: string): Candidate[] {
  const out: Candidate[] = [];
  if (!text.includes('eyJ')) return out;
  for (const m of text.matchAll(JWT)) {
    const header = m[0].slice(0, m[0].indexOf('.'));
    if (!hasAlgorithm(header)) continue;
    out.push({ start: m.index, end: m.index + m[0].length, bucket: 'SECRET', rank: Rank.format });
  }
  return out;
}

function hasAlgorithm(part: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return (
      typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string'
    );
  } catch {
    return false;
  }
}
