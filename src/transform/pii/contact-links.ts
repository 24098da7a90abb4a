import type { Root } from 'hast';
import { eachElement } from '../../render/walk-elements.ts';
import { replacement } from './replace.ts';
import type { PiiSettings } from './settings.ts';
import type { PiiBucket } from './spans.ts';

/** Link schemes whose address is itself personal information, and its bucket. */
const schemes: Record<string, PiiBucket> = { mailto: 'EMAIL', tel: 'PHONE', callto: 'PHONE', sms: 'PHONE' };

/**
 * The address in `mailto:` and `tel:` links: the scheme says what it is, so it is redacted
 * whenever its bucket is (the link's text has been redacted with the rest). A query such as
 * `?subject=` stays. Other links' targets are left alone: they are where the link goes.
 */
export function redactContactLinks(tree: Root, settings: PiiSettings): void {
  eachElement(tree, (el) => {
    if (el.tagName !== 'a') return;
    const href = el.properties.href;
    if (typeof href !== 'string') return;
    const m = /^\s*([a-z]+):([^?]*)(.*)$/is.exec(href);
    const bucket = m ? schemes[m[1]!.toLowerCase()] : undefined;
    if (!m || !bucket || !settings.buckets.has(bucket) || m[2]!.trim() === '') return;
    el.properties.href = `${m[1]}:${replacement(m[2]!, bucket, settings.style)}${m[3]}`;
  });
}
