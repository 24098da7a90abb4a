import type { Root } from 'hast';
import type { DataTable, QuireDocument } from '../../document/model.ts';
import type { ParseOptions } from '../../options/parse-options.ts';
import { hasContent } from '../walk.ts';
import { redactContactLinks } from './contact-links.ts';
import { loadEngine, type PiiEngine } from './engine.ts';
import { metadataPieces } from './metadata-pieces.ts';
import type { ModelRedaction } from './model-findings.ts';
import { applySpans, type Piece } from './replace.ts';
import { type PiiSettings, piiSettings } from './settings.ts';
import { BLOCK_BREAK, treePieces } from './tree-pieces.ts';

export type { ModelEntity, ModelRedaction } from './model-findings.ts';
export type { PiiSettings } from './settings.ts';

export const accurateWithoutModelWarning =
  'redactPII mode accurate needs a language model; none is configured, so the aggressive mode ran.';

export interface Redaction {
  tree: Root;
  warnings: string[];
  /** Whether spans became `<BUCKET>` placeholders (replaceStyle tag), which Markdown must show as such. */
  placeholders: boolean;
}

/**
 * Redacts personal information as `redactPII` asks (nothing when it is off), after transform
 * and before render, so that every output rendered from the tree carries it: markdown, html,
 * links (mailto: and tel: ones), images' alt text, and each page's Markdown. The text of the
 * document is read as one (so a name found once is known everywhere in it), spans are written
 * back into the text nodes and attributes they came from, and no element is added, removed or
 * moved: tables, lists, links and code blocks keep their structure.
 *
 * The tree is changed in place (text values and attributes only): it is this conversion's own
 * and is rendered right after, and keeping every node's identity keeps what refers to nodes
 * (a PDF's per-page blocks) pointing at the redacted text. With `doc`, the descriptive metadata
 * (title, author, ...) and the per-page blocks' text are redacted in the same pass.
 * `model` carries a language model's findings for `accurate` (see ModelRedaction).
 */
export async function redactDocument(
  tree: Root,
  option: ParseOptions['redactPII'],
  doc?: Pick<QuireDocument, 'metadata' | 'pages'>,
  model?: ModelRedaction,
): Promise<Redaction> {
  const settings = piiSettings(option);
  if (!settings) return { tree, warnings: [], placeholders: false };
  const engine = await loadEngine(settings.mode, model);
  const hadContent = hasContent(tree);

  const { pieces, dataTables } = documentPieces(tree, doc);
  redactPieces(pieces, engine, settings);
  redactContactLinks(tree, settings);
  for (const table of dataTables) redactDataTable(table as DataTable, engine, settings);

  const warnings: string[] = [];
  if (settings.mode === 'accurate') warnings.push(...accurateWarnings(model));
  if (hadContent && !hasContent(tree))
    warnings.push('redactPII removed all of the text: all of it was found to be personal information.');
  return { tree, warnings, placeholders: settings.style === 'tag' };
}

function documentPieces(tree: Root, doc: Pick<QuireDocument, 'metadata' | 'pages'> | undefined) {
  const { pieces, dataTables } = treePieces(tree);
  if (doc) {
    for (const p of metadataPieces(doc.metadata)) pieces.push({ text: BLOCK_BREAK }, p);
    for (const page of doc.pages ?? [])
      for (const block of page.blocks ?? [])
        pieces.push({ text: BLOCK_BREAK }, { text: block.content, set: (v) => (block.content = v) });
  }
  return { pieces, dataTables };
}

function accurateWarnings(model: ModelRedaction | undefined): string[] {
  if (!model) return [accurateWithoutModelWarning];
  if (model.stage === 'fallback')
    return [
      `redactPII mode accurate could not use the language model (${model.reason}), so the aggressive mode ran.`,
    ];
  if (model.stage === 'apply' && model.readChars < model.textChars)
    return [
      `redactPII mode accurate: the language model read the first ${model.readChars} of the document's ${model.textChars} characters; the aggressive mode's people and places stand in for it past them.`,
    ];
  return [];
}

/**
 * The text a language model reads to find what to redact: the same text the redaction pass reads
 * (tree, metadata, page blocks, data tables' cells), its first `maxChars` characters, and how
 * long it is in all.
 */
export function redactionText(
  tree: Root,
  doc: Pick<QuireDocument, 'metadata' | 'pages'>,
  maxChars: number,
): { text: string; textChars: number } {
  const { pieces, dataTables } = documentPieces(tree, doc);
  const parts: string[] = [];
  let textChars = 0;
  const add = (text: string) => {
    if (textChars < maxChars) parts.push(text.slice(0, maxChars - textChars));
    textChars += text.length;
  };
  add(pieces.map((p) => p.text).join(''));
  for (const table of dataTables as DataTable[]) {
    if (table.header) for (const cell of table.header) add(BLOCK_BREAK + cell);
    for (const row of table.rows()) for (const cell of row) add(BLOCK_BREAK + cell);
  }
  return { text: parts.join(''), textChars };
}

function redactPieces(pieces: readonly Piece[], engine: PiiEngine, settings: PiiSettings): void {
  const text = pieces.map((p) => p.text).join('');
  if (text.trim() === '') return;
  applySpans(pieces, engine(text, settings.buckets), settings.style);
}

/** Rows redacted this many at a time: enough context for a row, little held at once. */
const ROWS_PER_PASS = 200;

/**
 * A data table's rows exist only while it is rendered (a CSV can have millions), so its row
 * source is wrapped: each pass of rows is read as one text, cells apart, as it streams out.
 */
function redactDataTable(table: DataTable, engine: PiiEngine, settings: PiiSettings): void {
  if (table.header) {
    const header = [...table.header];
    redactPieces(cellPieces([header]), engine, settings);
    table.header = header;
  }
  const rows = table.rows;
  table.rows = function* () {
    let batch: string[][] = [];
    for (const row of rows()) {
      batch.push([...row]);
      if (batch.length < ROWS_PER_PASS) continue;
      redactPieces(cellPieces(batch), engine, settings);
      yield* batch;
      batch = [];
    }
    redactPieces(cellPieces(batch), engine, settings);
    yield* batch;
  };
}

function cellPieces(rows: string[][]): Piece[] {
  const pieces: Piece[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      pieces.push({ text: BLOCK_BREAK }, { text: cell, set: (v) => (row[i] = v) });
    });
  return pieces;
}
