/** Number and table formatting shared by the sections of bench/RESULTS.md. */

export const dash = '–';
export const fmtScore = (x: number | null | undefined) => (x == null ? dash : x.toFixed(1));
export const fmtMs = (x: number | null | undefined) =>
  x == null ? dash : x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1);
export const fmtRatio = (x: number | null) => (x == null ? dash : `${x < 10 ? x.toFixed(2) : x.toFixed(1)}×`);
export const fmtMb = (kb: number | null | undefined) => (kb == null ? dash : (kb / 1024).toFixed(1));
export const fmtInt = (x: number) => String(Math.round(x));

export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
