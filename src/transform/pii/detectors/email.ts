import { type Candidate, matchCandidates, Rank } from '../spans.ts';

/**
 * Addresses as people write them: a dot-atom local part of the characters addresses use in
 * practice (RFC 5322 allows `=`, `/`, `'` and more, but then `user=bob@x.com` would swallow its
 * key) and a domain of labels ending in a letter TLD. The lookbehind keeps the local part whole:
 * an address never starts inside a word, and one after `:` or `/` is the user and password of a
 * URL, which the credentials rule judges.
 */
const EMAIL =
  /(?<![\w.%+\-:/])[A-Za-z0-9_%+-]+(?:\.[A-Za-z0-9_%+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}(?![\w-])/g;

export function findEmails(text: string): Candidate[] {
  return text.includes('@') ? matchCandidates(text, EMAIL, 'EMAIL', Rank.email) : [];
}
