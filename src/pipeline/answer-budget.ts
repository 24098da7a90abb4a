import { ConversionError } from '../convert/converter.ts';
import { limits } from '../limits.ts';

/**
 * The characters one conversion's outputs may take together, counted as each is rendered, so
 * that a small upload that expands (a picture placed hundreds of times, a grid of empty cells)
 * is refused once its answer passes `limits.answerChars`, before the next output is built.
 */
export class AnswerBudget {
  private readonly sizes: [string, number][] = [];
  private total = 0;

  /** Counts an output; throws RESOURCE_LIMIT, naming every output's size, once past the cap. */
  add<T>(name: string, output: T, size: (output: T) => number): T {
    const chars = size(output);
    this.sizes.push([name, chars]);
    this.total += chars;
    if (this.total > limits.answerChars) {
      const parts = this.sizes.map(([n, c]) => `${n} ${mb(c)}`).join(', ');
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `The answer would pass ${mb(limits.answerChars)} (${parts}); ask for fewer formats, or for markdown alone with removeBase64Images.`,
      );
    }
    return output;
  }
}

const mb = (chars: number) => `${(chars / 2 ** 20).toFixed(1)} MB`;

/** Characters of a string, or of a list's strings. */
export const chars = (value: string | readonly string[]): number =>
  typeof value === 'string' ? value.length : value.reduce((n, s) => n + s.length + 3, 0);
