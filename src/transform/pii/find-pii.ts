import { findBankAccounts } from './detectors/bank-account.ts';
import { findCredentials } from './detectors/credentials.ts';
import { findEmails } from './detectors/email.ts';
import { findIbans } from './detectors/iban.ts';
import { findJwts } from './detectors/jwt.ts';
import { findPaymentCards } from './detectors/payment-card.ts';
import { findPhones } from './detectors/phone.ts';
import { findPrivateKeys } from './detectors/private-key.ts';
import { findSecretFormats } from './detectors/secret-formats.ts';
import { findUsSsns } from './detectors/us-ssn.ts';
import type { PiiMode } from './settings.ts';
import { type Candidate, chooseSpans, type PiiBucket, type PiiSpan } from './spans.ts';

/** The validated patterns of `fast` mode. */
const patternDetectors: readonly ((text: string) => Candidate[])[] = [
  findEmails,
  findPhones,
  findIbans,
  findPaymentCards,
  findUsSsns,
  findBankAccounts,
  findPrivateKeys,
  findJwts,
  findSecretFormats,
  findCredentials,
];

/** Detectors of people and places, loaded on first use (the recognizer's lexicon takes a moment). */
export type NameFinder = (text: string, buckets: ReadonlySet<PiiBucket>) => Candidate[];

/**
 * The spans of `text` to redact in the given buckets. Overlaps are settled by evidence
 * (chooseSpans) before the buckets not asked for are dropped: the patterns are cheap, and a
 * bucket left out must still block its wrong readings (with only EMAIL asked for, the password
 * of `redis://:pw@host` is still a password, not the start of an address).
 */
export function findPii(
  text: string,
  mode: PiiMode,
  buckets: ReadonlySet<PiiBucket>,
  names?: NameFinder,
): PiiSpan[] {
  const candidates: Candidate[] = [];
  for (const detect of patternDetectors) candidates.push(...detect(text));
  if (mode !== 'fast' && names && (buckets.has('PERSON') || buckets.has('LOCATION')))
    candidates.push(...names(text, buckets));
  return chooseSpans(candidates).filter((s) => buckets.has(s.bucket));
}
