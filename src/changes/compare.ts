import { createTwoFilesPatch } from 'diff';

export type ChangeStatus = 'new' | 'same' | 'changed' | 'removed';

/**
 * Whether two Markdown texts say the same: equal once every run of whitespace is one space and
 * the ends are trimmed. Order counts. Upstream also sorts the characters before comparing, so a
 * reordering reads as the same page, but so does any edit that only moves characters (a price
 * of 19.99 becoming 91.99); a monitor has to see those.
 */
export function sameContent(previous: string, current: string): boolean {
  const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();
  return squeeze(previous) === squeeze(current);
}

/** A page that answers 404 or 410 is gone, whatever it held before. */
export const isRemoved = (statusCode: number): boolean => statusCode === 404 || statusCode === 410;

export function changeStatus(
  previous: string | undefined,
  current: string,
  statusCode: number,
): ChangeStatus {
  if (isRemoved(statusCode)) return 'removed';
  if (previous === undefined) return 'new';
  return sameContent(previous, current) ? 'same' : 'changed';
}

/** A git-style unified diff of the two texts, three lines of context, as upstream writes it. */
export function gitDiff(previous: string, current: string): string {
  return createTwoFilesPatch('previous.md', 'current.md', previous, current, undefined, undefined, {
    context: 3,
  });
}
