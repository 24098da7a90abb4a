import type { NameFinder } from './find-pii.ts';
import type { PiiMode } from './settings.ts';
import type { PiiBucket, PiiSpan } from './spans.ts';

/** Finds the spans to redact in a text, for the buckets asked for. */
export type PiiEngine = (text: string, buckets: ReadonlySet<PiiBucket>) => PiiSpan[];

let names: Promise<NameFinder> | undefined;

/**
 * The detectors for a mode, loaded on first use: a worker that never redacts never loads the
 * phone metadata, the lexicons or the city list (about a second for the gazetteers).
 */
export async function loadEngine(mode: PiiMode): Promise<PiiEngine> {
  const { findPii } = await import('./find-pii.ts');
  if (mode === 'fast') return (text, buckets) => findPii(text, 'fast', buckets);
  names ??= import('./names.ts').then((m) => m.loadNameFinder());
  const finder = await names;
  // `accurate` has no model to call yet: it runs `aggressive` (and the caller says so).
  return (text, buckets) => findPii(text, 'aggressive', buckets, finder);
}
