import { type Candidate, matchCandidates, Rank } from '../spans.ts';

/**
 * PEM and OpenSSH private-key blocks, BEGIN line to END line (RFC 7468), whatever prefixes the
 * lines carry in between (a YAML indent, a `# ` comment).
 */
const BLOCK = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END \1PRIVATE KEY\2-----/g;

export function findPrivateKeys(text: string): Candidate[] {
  return text.includes('-----BEGIN') ? matchCandidates(text, BLOCK, 'SECRET', Rank.format) : [];
}
