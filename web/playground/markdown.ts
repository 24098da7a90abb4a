import DOMPurify from 'dompurify';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

// A link in the preview opens beside the playground rather than in place of it.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/**
 * Markdown to HTML for the preview: CommonMark with GFM, as Quire itself reads Markdown. Raw HTML
 * is let through (Quire writes tables with merged cells as HTML tables) and then sanitized, since
 * the Markdown comes from an uploaded document.
 */
export function renderMarkdown(markdown: string): string {
  const html = micromark(markdown, {
    allowDangerousHtml: true,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
  });
  return DOMPurify.sanitize(html, { FORBID_TAGS: ['style', 'form'], FORBID_ATTR: ['style'] });
}
