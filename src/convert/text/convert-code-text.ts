import type { Root } from 'hast';
import type { Converter } from '../converter.ts';
import { decodeUpload } from './decode-upload.ts';

/**
 * Structured text shown as it is: JSON and XML become one fenced code block in their language,
 * the source untouched (not reformatted, not validated), which is how a reader, and a model,
 * takes data best. Their MIME types, as upstream reports them for such files.
 */
function codeConverter(language: string, mime: string): Converter {
  return (input) => {
    const { text, contentType } = decodeUpload(input.bytes, mime);
    const code = text.replace(/^\n+|\s+$/g, '');
    const tree: Root = {
      type: 'root',
      children:
        code === ''
          ? []
          : [
              {
                type: 'element',
                tagName: 'pre',
                properties: {},
                children: [
                  {
                    type: 'element',
                    tagName: 'code',
                    properties: { className: [`language-${language}`] },
                    children: [{ type: 'text', value: code }],
                  },
                ],
              },
            ],
    };
    return { kind: 'document', tree, metadata: {}, contentType, baseUrl: input.url, warnings: [] };
  };
}

export const convertJson = codeConverter('json', 'application/json');
export const convertXml = codeConverter('xml', 'application/xml');
