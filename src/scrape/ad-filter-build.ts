import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { FiltersEngine } from '@ghostery/adblocker';

// Parses the filter lists into an engine, on a worker thread: 5 MB of lists take 3-10 s of CPU,
// which on the API process's event loop would stall every request meanwhile. Only the serialised
// engine crosses back (src/scrape/ad-filter.ts deserialises it in ~20 ms and caches it on disk).

const { files } = workerData as { files: string[] };
const text = files.map((file) => fs.readFileSync(file, 'utf8')).join('\n');
const engine = FiltersEngine.parse(text, {
  // Off: Quire runs no page scripts of the lists' (scriptlets need resources the package does
  // not ship), no extended selectors (`:has-text()`, which neither the browser nor the converter
  // runs), no HTML filtering and no CSP injection.
  loadExtendedSelectors: false,
  enableHtmlFiltering: false,
  loadCSPFilters: false,
  // Compression shrinks the engine by a third but slows every match; memory is not the constraint.
  enableCompression: false,
});
const bytes = engine.serialize();
parentPort!.postMessage(bytes, [bytes.buffer as ArrayBuffer]);
