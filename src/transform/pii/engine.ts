import type { NameFinder } from './find-pii.ts';
import type { ModelRedaction } from './model-findings.ts';
import type { PiiMode } from './settings.ts';
import type { PiiBucket, PiiSpan } from './spans.ts';

/** Finds the spans to redact in a text, for the buckets asked for. */
export type PiiEngine = (text: string, buckets: ReadonlySet<PiiBucket>) => PiiSpan[];

let names: Promise<NameFinder> | undefined;
const nameFinder = () => {
  names ??= import('./names.ts').then((m) => m.loadNameFinder());
  return names;
};

/**
 * The detectors for a mode, loaded on first use: a worker that never redacts never loads the
 * phone metadata, the lexicons or the city list (about a second for the gazetteers).
 */
export async function loadEngine(mode: PiiMode, model?: ModelRedaction): Promise<PiiEngine> {
  const { findPii } = await import('./find-pii.ts');
  if (mode === 'fast') return (text, buckets) => findPii(text, 'fast', buckets);
  if (mode === 'accurate' && model?.stage === 'apply') {
    const { modelSpans } = await import('./model-findings.ts');
    // Past what the model read, the recognizer's people and places stand in for it.
    const finder = model.readChars < model.textChars ? await nameFinder() : undefined;
    return (text, buckets) => modelSpans(text, model.entities, buckets, finder);
  }
  const finder = await nameFinder();
  // `accurate` without the model's findings runs `aggressive` (and the caller says so).
  return (text, buckets) => findPii(text, 'aggressive', buckets, finder);
}
