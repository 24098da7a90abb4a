import type { WorkBook } from '@e965/xlsx';
import type { DocumentMetadata } from '../../document/model.ts';

/**
 * The workbook's properties: what the package's own property part says (read by the shared
 * readers), completed from what SheetJS found (ODS variants, an Excel 5 or 95 stream).
 */
function iso(value: unknown): string | undefined {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

export function workbookMetadata(wb: WorkBook, own: DocumentMetadata): DocumentMetadata {
  const metadata: DocumentMetadata = { ...own };
  const props = wb.Props;
  if (!props) return metadata;
  const fill = (key: string, value: string | undefined): void => {
    if (value !== undefined && metadata[key] === undefined) metadata[key] = value;
  };
  fill('title', text(props.Title));
  fill('author', text(props.Author));
  fill('subject', text(props.Subject));
  fill('description', text(props.Comments));
  fill('keywords', text(props.Keywords));
  fill('language', text((props as { Language?: unknown }).Language));
  fill('lastModifiedBy', text(props.LastAuthor));
  fill('created', iso(props.CreatedDate));
  fill('modified', iso((props as { ModifiedDate?: unknown }).ModifiedDate));
  return metadata;
}
