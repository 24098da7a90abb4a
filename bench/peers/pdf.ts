import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { formatFromExtension, toMarkdownBytes } from '@firecrawl/anydoc';
import { pdfjsText } from './pdfjs.ts';

const execFileAsync = promisify(execFile);

/** A PDF converter under test: a file in, text or Markdown out. */
export interface PdfTool {
  id: string;
  label: string;
  how: string;
  /** In the bench's process (one run per document, no warm-up) or a new process per document, its start included. */
  runsIn: 'this process' | 'a process per document';
  /** Subsets it is run on (undefined: all). */
  subsets?: readonly string[];
  /** Whether it can stop after the first N pages. */
  maxPages: boolean;
  convert(file: string, bytes: Uint8Array, opts: { maxPages?: number }): Promise<string>;
}

const big = { maxBuffer: 256 * 1024 * 1024, timeout: 300_000 };

export const pdftotext: PdfTool = {
  id: 'pdftotext',
  label: 'pdftotext',
  how: '`pdftotext -enc UTF-8 <file> -` (poppler, reading-order mode), one process per document',
  runsIn: 'a process per document',
  maxPages: true,
  async convert(file, _bytes, opts) {
    const pages = opts.maxPages ? ['-l', String(opts.maxPages)] : [];
    const { stdout } = await execFileAsync('pdftotext', ['-enc', 'UTF-8', ...pages, file, '-'], big);
    return stdout;
  },
};

export const anydocPdf: PdfTool = {
  id: 'anydoc',
  label: 'anydoc',
  how: 'in-process `toMarkdownBytes(bytes, "pdf")` (@firecrawl/anydoc, native)',
  runsIn: 'this process',
  maxPages: false,
  convert: (_file, bytes) => toMarkdownBytes(bytes, formatFromExtension('pdf')),
};

/** Tesseract on pages rasterized by pdftoppm: the OCR baseline for scanned PDFs. */
export const tesseract: PdfTool = {
  id: 'tesseract',
  label: 'Tesseract',
  how: '`pdftoppm -r 300 -gray` then `tesseract --psm 3 --oem 1 -l eng` per page, `OMP_THREAD_LIMIT=1`',
  runsIn: 'a process per document',
  subsets: ['scanned'],
  maxPages: true,
  async convert(file, _bytes, opts) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-ocr-peer-'));
    try {
      const pages = opts.maxPages ? ['-l', String(opts.maxPages)] : [];
      await execFileAsync('pdftoppm', ['-r', '300', '-gray', ...pages, file, path.join(dir, 'p')], big);
      const images = fs.readdirSync(dir).sort();
      const texts: string[] = [];
      for (const image of images) {
        const { stdout } = await execFileAsync(
          'tesseract',
          [path.join(dir, image), 'stdout', '--dpi', '300', '-l', 'eng', '--oem', '1', '--psm', '3'],
          { ...big, env: { ...process.env, OMP_THREAD_LIMIT: '1' } },
        );
        texts.push(stdout);
      }
      return texts.join('\n\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

export const pdfPeers: readonly PdfTool[] = [pdftotext, pdfjsText, anydocPdf, tesseract];

/** What a PDF tool's ms/doc include, for table headers. */
export function pdfTimedAs(tool: PdfTool): string {
  return tool.runsIn === 'this process' ? 'in-process, one run' : 'process per doc, incl. its start';
}
