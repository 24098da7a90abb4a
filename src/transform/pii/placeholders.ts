import { piiEntities } from '../../options/parse-options.ts';

const ESCAPED = new RegExp(`(?:&lt;|\\\\<)(${piiEntities.join('|')})>`, 'g');

/**
 * The `tag` placeholders as the contract writes them, `<EMAIL>`, in Markdown: the renderer
 * escapes a `<` that could open an HTML tag (`&lt;EMAIL>`, `\<EMAIL>` in alt text), which is
 * correct Markdown but not the literal placeholder clients look for, and upstream's answer has.
 */
export function showPlaceholders(markdown: string): string {
  return markdown.replace(ESCAPED, '<$1>');
}
