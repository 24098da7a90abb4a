import { type Candidate, Rank } from '../spans.ts';

/** AAA-GG-SSSS with hyphens: bare or spaced nine-digit runs are too often other numbers (or phones). */
const SSN = /(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])/g;

/**
 * US Social Security and Individual Taxpayer Identification Numbers, by the SSA's and the IRS's
 * issuing rules: no area 000 or 666, no group 00, no serial 0000; areas 900-999 are ITINs, whose
 * group is 50-65, 70-88, 90-92 or 94-99. Numbers the SSA has voided for being published
 * (078-05-1120, 219-09-9999, 123-45-6789) are left alone.
 * Both are in FINANCIAL, as upstream's buckets put US_SSN and US_ITIN.
 */
export function findUsSsns(text: string): Candidate[] {
  const out: Candidate[] = [];
  for (const m of text.matchAll(SSN)) {
    const [area, group, serial] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (area === 0 || area === 666 || group === 0 || serial === 0) continue;
    if (area >= 900 && !isItinGroup(group)) continue;
    if (voided.has(`${m[1]}${m[2]}${m[3]}`)) continue;
    out.push({ start: m.index, end: m.index + m[0].length, bucket: 'FINANCIAL', rank: Rank.checksum });
  }
  return out;
}

const voided = new Set(['078051120', '219099999', '123456789']);

function isItinGroup(group: number): boolean {
  return (
    (group >= 50 && group <= 65) ||
    (group >= 70 && group <= 88) ||
    (group >= 90 && group <= 92) ||
    (group >= 94 && group <= 99)
  );
}
