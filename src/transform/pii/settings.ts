import type { ParseOptions } from '../../options/parse-options.ts';
import type { PiiBucket } from './spans.ts';

export type PiiMode = 'fast' | 'aggressive' | 'accurate';
export type PiiStyle = 'tag' | 'mask' | 'remove';

/** `redactPII` as the redactor uses it: `true` already turned into the documented defaults. */
export interface PiiSettings {
  mode: PiiMode;
  buckets: ReadonlySet<PiiBucket>;
  style: PiiStyle;
}

export const allBuckets: readonly PiiBucket[] = [
  'PERSON',
  'EMAIL',
  'PHONE',
  'LOCATION',
  'FINANCIAL',
  'SECRET',
];

/** The settings `redactPII` asks for, or undefined when it is off. */
export function piiSettings(option: ParseOptions['redactPII']): PiiSettings | undefined {
  if (option === false) return undefined;
  if (option === true) return { mode: 'accurate', buckets: new Set(allBuckets), style: 'tag' };
  return {
    mode: option.mode,
    buckets: new Set(option.entities ?? allBuckets),
    style: option.replaceStyle,
  };
}
