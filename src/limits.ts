/**
 * Every safety limit in one place. Each number says why it is what it is, so that
 * raising one is a decision rather than an accident.
 */
const MiB = 1024 * 1024;

export const limits = {
  /**
   * PDFs with at least this many pages are laid out on two threads. A second pdf.js instance
   * costs ~0.2 s and one more copy of the file; below ~60 pages it does not pay for itself.
   */
  pdfParallelPages: 60,
  /**
   * Cores a machine needs before a long PDF gets that second thread by default
   * (QUIRE_PDF_THREADS). A conversion on one thread already keeps ~1.35 cores busy (V8's
   * collector and compiler run beside it): on two cores the helper cut a long PDF's wall time
   * by 7-12% for 24-34% more CPU (bench: the 352-page book and the mix of real PDFs), and
   * under load it only takes CPU from other conversions.
   */
  pdfHelperCores: 4,
  /**
   * PDFs of at least this many bytes start that second thread before they are opened (its
   * start-up then overlaps the opening): files this size are mostly long documents or scans.
   */
  pdfWarmHelperBytes: 1_000_000,
  /**
   * Rules (vector strokes) kept per PDF page for table detection. A ruled table has tens to
   * a few thousand; a map or a hatched drawing has more and is no table.
   */
  pdfPageSegments: 20_000,
  /** Heap of that second PDF thread: pdf.js needs ~150 MB for a 350-page book; more is hostile. */
  pdfWorkerHeapMb: 512,
  /** Largest image pdf.js decodes, in pixels: a 600 dpi A3 scan is ~70 Mpx; bombs claim more. */
  pdfImagePixels: 100_000_000,
  /**
   * Codes one PDF CMap may map (pdf.js allows 16.7 million). A font has at most 65,535
   * glyphs, and Adobe's largest CJK CMaps map tens of thousands of codes; one flipped bit in a
   * ToUnicode range made a million-fold one, which took 11 s of CPU to build on one page.
   * Ranges past it are skipped with pdf.js's own warning, as they are past its limit.
   */
  pdfCMapEntries: 2 ** 20,
  /**
   * Adobe's CJK CMaps kept parsed per conversion thread, for the next font or document that
   * names one (parsing one took as long as reading a page). A language uses two (its encoding
   * and its Unicode map), each a megabyte or two: four languages' worth.
   */
  pdfCachedCMaps: 8,
  /**
   * Bytes one PDF stream may inflate to. The largest real one is an image at pdfImagePixels
   * with four channels (400 MB); a page's content stream is kilobytes to a few MB. A flate
   * bomb (1000:1) from a 50 MB upload would claim 50 GB: past this it is left out, unread.
   */
  pdfStreamInflatedBytes: 400 * MiB,
  /**
   * Objects indexed when a damaged PDF is rebuilt by scanning its bytes, those inside its
   * object streams included. A 50 MB file of ordinary objects holds well under a million;
   * more than that are fabricated (a million cost under 0.5 s and up to ~600 MB to index).
   */
  pdfRepairObjects: 1_000_000,
  /**
   * Bytes inflated from object streams while rebuilding a damaged PDF (they hold its page
   * dictionaries): real object streams are a few MB in all; a zip bomb is cut off here.
   */
  pdfRepairInflateBytes: 64 * MiB,
  /**
   * Memory a conversion process may hold outside its JavaScript heap (inflated streams and
   * images live in buffers the heap limit does not count). The big-document bench peaks at
   * ~600 MB of RSS in all; a process over its heap limit plus this is killed, and its
   * conversion fails alone with RESOURCE_LIMIT.
   */
  workerOffHeapMb: 1024,
  /** How often that is checked: inflating runs at ~1 GB/s, so it overshoots by ~200 MB at most. */
  workerWatchdogMs: 200,
  /**
   * How fast a team's past worker time stops counting against it in the fair queue: it
   * halves every minute, so a team that sent slow files a minute ago is only half behind,
   * and one idle for five minutes starts nearly fresh.
   */
  fairUsageHalfLifeMs: 60_000,
  /**
   * How long a team counts as still active after its last parse was asked for or answered:
   * while it holds no worker, a team that holds one leaves one free for it. A client's round
   * trip between two requests is milliseconds to a second or two; 5 s covers it with room,
   * and a team that has gone keeps a worker idle for at most that long. Without it, another
   * team's slow files took every worker the moment a small request ended, and the next small
   * request waited up to their whole timeout (p99 30 s against 62 ms).
   */
  fairReserveMs: 5_000,
  /**
   * A conversion that has run this long continues in the background (backgroundNice), so that
   * the short ones beside it, most requests, are not slowed by it: several times a typical page
   * of HTML (10-100 ms), about an office file. Background only yields CPU to what is in the
   * foreground, so a long conversion on an otherwise idle machine runs as fast. At 1 s, another
   * team's small parses beside hostile files had a p99 of 70 ms against 62 ms at 300 ms (17-22
   * unloaded). Which team sent it does not matter: judged by team worker time instead, a team
   * sending small parses back to back used as much as one sending slow files, and its parses
   * were the ones put in the background.
   */
  backgroundAfterMs: 300,
  /**
   * Niceness of a conversion in the background, its OCR processes included. At 10 it gets about
   * a tenth of a core's share against one at 0: with one team's hostile files on two cores,
   * another team's small parses had a p99 11x their unloaded one without it, mostly CPU taken
   * by the slow file beside them, and the slow file still gets any idle CPU.
   */
  backgroundNice: 10,
  /**
   * Conversion processes kept beyond the workers, idle. A conversion that times out kills its
   * process, and its replacement takes a second or more to load the converters: without a spare,
   * the next conversion could wait for that start (another team's 10 ms parse took 2-5 s while
   * one team's hostile files timed out beside it). Two, because two processes are often
   * replaced at once: one team's conversion killed at its deadline, and its next request, granted
   * the freed worker with little of its own timeout left, killed soon after. With one spare,
   * another team's small parse then waited for a start (max 0.9-1.5 s beside two hostile
   * clients); with two, 0.2-0.3 s. An idle process holds about 130 MB. The fair queue still runs
   * only as many conversions at once as there are workers. The default of QUIRE_SPARE_WORKERS.
   */
  spareWorkers: 2,
  /**
   * Cluster mode: a job's expected worker time when its team has none measured yet, for the
   * priority of its jobs queued behind it (cluster-fairness.ts). A second, the order of a
   * typical office document or a few PDF pages; it only orders a new team's own backlog
   * against others until its first job ends and its real mean takes over.
   */
  clusterFairDefaultJobMs: 1_000,
  /**
   * Worker milliseconds per step of BullMQ priority: 10 ms is finer than any conversion's
   * cost differs by meaningfully, and with BullMQ's 2^21 steps still spans 5.8 hours of
   * decayed worker time before priorities saturate.
   */
  clusterFairPriorityStepMs: 10,
  /** BullMQ's lowest priority (2^21 - 1); a team past it competes in arrival order. */
  clusterFairLowestPriority: 2_097_151,
  /** Half-lives after which a team's usage in Redis is forgotten: 2^-10 of it is left by then. */
  clusterFairForgetHalfLives: 10,
  /**
   * Cluster mode: how long a worker's claim on a job lasts without renewal (BullMQ renews it
   * every half of this while the worker lives). When a worker dies mid-conversion its job is
   * taken up again at most this plus two stalled-job checks (QUIRE_CLUSTER_STALLED_CHECK_MS,
   * default clusterStalledCheckMs) later: 15 s keeps that well within
   * the default 30 s timeout, and a live worker, whose conversions run in child processes and
   * never block its event loop, renews in milliseconds even on a loaded machine.
   */
  clusterJobLockMs: 15_000,
  /** The default of QUIRE_CLUSTER_STALLED_CHECK_MS: how often workers look for jobs whose worker died. */
  clusterStalledCheckMs: 5_000,
  /**
   * How long a worker's answer waits in Redis for the API process that asked for it, which
   * reads it the moment the job's completion reaches it (milliseconds): only an API process
   * that died leaves one there, and it is gone a minute later.
   */
  clusterResultTtlMs: 60_000,
  /**
   * Added to a request's timeout for how long its upload may stay in Redis: the API process
   * deletes it when the request ends, so this only bounds what an API process that died leaves.
   */
  clusterUploadTtlMarginMs: 10_000,
  /**
   * Cluster mode: how long a team concurrency slot outlives the last renewal by the API process
   * holding it (renewed every third of this). An API process that dies frees its teams' slots
   * this long after; 30 s is the default timeout, the time a request there could have held one.
   */
  clusterSlotLeaseMs: 30_000,
  /**
   * How often an API process's waiters for a team slot try again without being told a slot was
   * given back: only a holder that died frees one silently, and a second on top of its lease's
   * expiry is no loss, at one Redis call per waiting team per second.
   */
  clusterSlotRetryMs: 1_000,
  /**
   * Retry-After for a request refused because its team's queue is full (`teams set --queue-depth`):
   * a place frees only when one of the team's running conversions ends, seconds for a full
   * upload, and each retry sends its upload again, so a sooner retry would mostly be refused too.
   */
  teamQueueFullRetryS: 5,
  /**
   * Characters of one conversion's outputs together (markdown, html, rawHtml, links, images,
   * pages, blocks). Past it the parse is refused with RESOURCE_LIMIT: a 9.6 KB DOCX answered
   * 447 MB of HTML and a worse one took the API process to 4.4 GB. 160 MB holds a workbook cut
   * at its 50 MB of Markdown together with its HTML, and stays a body a client can take.
   */
  answerChars: 160 * MiB,
  /**
   * Uploads and answers from this size on cross between the API process and its conversion
   * processes through a socket (src/pipeline/bulk-channel.ts), not the IPC channel, whose copies
   * held the API process's event loop for hundreds of milliseconds per 20 MB answer. Below it a
   * copy costs less than a connection: a page of HTML is a few KB.
   */
  bulkMinBytes: 64 * 1024,
  /**
   * The largest answer a conversion process may announce on that socket: `answerChars` in UTF-8
   * (up to 3 bytes a character), with room for JSON escapes. Only a corrupt announcement passes it.
   */
  bulkAnswerBytes: 4 * 160 * MiB,
  /**
   * Text the offline summary and json read from one document (about a 600-page book): ranking
   * sentences and matching labels is linear in it, well under a second of worker time here.
   */
  enrichTextChars: 2_000_000,
  /** Table rows they read, all tables together: a long price list; a CSV of millions is data, not a form. */
  enrichTableRows: 20_000,
  /** The extractive summary: at most this many sentences and characters, an abstract's length. */
  summarySentences: 5,
  summaryChars: 1_000,
  /** Shorter sentences are fragments (captions, labels, list entries), not what a summary is made of. */
  summarySentenceMinWords: 6,
  /**
   * Characters of a `json` format's schema: a schema of a hundred fields is ~10k. Compiling one
   * (ajv generates code) takes the API process's time in proportion, so larger ones are refused.
   */
  jsonSchemaChars: 100_000,
  /** Nesting of a caller's JSON Schema the offline extraction follows, `$ref`s included: deeper is a cycle. */
  schemaDepth: 16,
  /**
   * Characters per token when estimating a text's tokens: about 4 for English prose with GPT's
   * and Llama's tokenizers (fewer for code and other scripts, so budgets keep a margin).
   */
  llmCharsPerToken: 4,
  /**
   * Document tokens one model call reads, the default of QUIRE_LLM_MAX_INPUT_TOKENS: fits the
   * 8k-token context of small local models with the instructions and the answer beside it.
   */
  llmMaxInputTokens: 8_000,
  /**
   * Calls one document is read in at most, so one parse's cost and time stay bounded: 8 chunks of
   * 8k tokens are ~250k characters, a 100-page report. Past it the start is read, with a warning.
   */
  llmMaxChunks: 8,
  /** Tokens of one summary answer (a chunk's or the combined one): ~350 words, more than five sentences. */
  llmSummaryTokens: 512,
  /** Tokens of one JSON answer: records of a long table fit; past it the answer is cut and fails validation. */
  llmJsonTokens: 4_096,
  /** Model calls this process makes at once, the default of QUIRE_LLM_CONCURRENCY: a local server runs few in parallel. */
  llmConcurrency: 4,
  /**
   * Time kept back from the request's deadline when calling a model, so that a model that runs
   * out of time gives `null` and a warning (200) rather than the whole parse a 408.
   */
  llmAnswerMarginMs: 500,
  /** Bytes of a model's HTTP answer read: a 4k-token answer is ~16 kB; megabytes are not an answer. */
  llmResponseBytes: 4 * MiB,
  /**
   * Distinct strings a model may name for redaction in one document: each is searched for in the
   * whole text, so the count bounds that work (5,000 searches of a 1 MB text take about a
   * second); the ~250k characters a model reads hold a few thousand names at most.
   */
  piiModelEntities: 5_000,
  /** Characters of a model's error message kept in a warning (upstream keeps 300). */
  llmErrorChars: 300,
  /**
   * Block quotes nested in one Markdown line: micromark re-checks every open quote on each line,
   * so time grows with the square of the depth (20,000 deep: 3 s; 80,000: over a minute). No
   * document nests quotes past a few levels; 100 costs nothing.
   */
  markdownQuoteDepth: 100,
  /**
   * Reference definitions in one Markdown file: micromark looks each reference up in a list of
   * the definitions seen, so time grows with the square of their number (10,000: 6 s). A long
   * document with a footnote-style link list has a few hundred.
   */
  markdownDefinitions: 2_000,
  /** The contract's upload limit ("Maximum 50 MB per request"); enforced while streaming. */
  uploadBytes: 50 * MiB,
  /**
   * Upload bytes the API process holds at once, all requests together: each is held from its
   * first byte until its answer is sent. 1 GiB is twenty full uploads, well inside the
   * process's memory beside the answers it streams; past it, uploads get 429. The default of
   * QUIRE_UPLOADS_IN_FLIGHT_MB, for an operator to fit to the machine.
   */
  uploadBytesInFlight: 1024 * MiB,
  /**
   * The same, for one team: four full uploads (more than its parses can run at once on a
   * small node), so one team's burst leaves most of the node's budget to others. The default
   * of QUIRE_TEAM_UPLOADS_IN_FLIGHT_MB.
   */
  uploadBytesInFlightPerTeam: 4 * 50 * MiB,
  /** Retry-After for an upload refused for those: a full upload's conversion takes seconds. */
  uploadBusyRetryS: 5,
  /**
   * A PostgreSQL query that has not answered in this long is failed (a 503 the caller may retry):
   * every query Quire sends is one short statement, so only a database cut off without a reset
   * (a partition, a failover) takes this long, and a request must not hang on it until its timeout.
   */
  storeQueryTimeoutMs: 15_000,
  /** Retry-After for a request refused because the store cannot be reached: a restart takes seconds. */
  storeUnavailableRetryS: 5,
  /**
   * Nesting of a JSON body or `options` part. A JSON Schema for the `json` format nests a few
   * levels per schema level, so 128 is far past any real request; deeper is refused before
   * parsing, which is where a hostile body costs the event loop.
   */
  jsonDepth: 128,
  /**
   * Time to receive a whole request, body included: a full upload at 4 Mbit/s takes 100 s.
   * A slower or never-ending body held its socket (and its bytes) for six minutes.
   */
  requestReceiveMs: 120_000,
  /**
   * The default of QUIRE_REQUEST_HEADERS_TIMEOUT_MS, the time to receive a request's headers: a
   * real client sends them at once; a trickle is an attack.
   */
  requestHeadersMs: 15_000,
  /** The `options` part is a small JSON object; 1 MiB leaves room for a large JSON schema. */
  optionsBytes: 1 * MiB,
  /** Multipart parts other than `file` and `options` are rejected, so a few fields suffice. */
  multipartFields: 8,
  /** JSON bodies on JSON routes (upstream answers 413 past 10 MB). */
  jsonBodyBytes: 10 * MiB,
  /**
   * Element nesting kept from an HTML page. Browsers' parsers stop nesting near 512; the
   * tree walkers downstream recurse, so deeper elements are hoisted to this depth.
   */
  htmlDepth: 256,
  /**
   * Element nesting the Markdown renderer takes. Its walk and the serializer after it recurse
   * and overflow Node's default stack near 1400-2000 levels (less before the JIT has warmed
   * up); converters hand over trees a few hundred deep at most (htmlDepth, xmlDepth), so a
   * deeper tree is a converter's bug, refused rather than crashing the worker.
   */
  renderDepth: 512,
  /** Elements in one HTML page; a real page has well under a million. Beyond it is hostile. */
  htmlElements: 2_000_000,
  /** Bytes sniffed for a file's signature and for charset detection. */
  sniffBytes: 64 * 1024,
  /** Columns of one CSV row; real data stays far below, a junk file can claim millions. */
  csvColumns: 4096,
  /** A single CSV field; a 50 MB quoted field is junk, not data. */
  csvFieldBytes: 8 * MiB,
  /**
   * Entries in one ZIP package (DOCX, ODT, EPUB, ...). Office files have tens to a few
   * thousand; a package with more is built to exhaust memory through per-entry overhead.
   */
  zipEntries: 20_000,
  /**
   * Bytes inflated from one package, all entries together. A 50 MB upload of text-heavy XML
   * inflates 5-10x; 512 MiB keeps real documents while a zip bomb (1000x and more) stops
   * early, before the worker's heap limit does it less politely.
   */
  zipInflatedBytes: 512 * MiB,
  /** Element nesting in one XML part; real office XML stays under 100, the tree walkers recurse. */
  xmlDepth: 256,
  /**
   * Elements and text nodes kept from one document's XML parts together. The biggest real
   * documents (a 2.6 MB document.xml) have about half a million; each costs ~200 bytes.
   */
  xmlNodes: 8_000_000,
  /**
   * Cells one OpenDocument table may gain by expanding repeats (`table:number-columns-repeated`,
   * `table:number-rows-repeated`): a few bytes can claim billions of cells, so the copies are
   * what is bounded (real cells already count against xmlNodes). A document's tables repeat a
   * handful of cells; 100k copies is about 20 MB of tree.
   */
  odfRepeatedCells: 100_000,
  /**
   * Cells of the data table shown for one presentation chart (categories × series, from the
   * values the chart caches). Real charts hold dozens to a few thousand points; a hostile one
   * could pair a million series with a million categories, so the table is cut (with a warning).
   */
  chartTableCells: 100_000,
  /**
   * Worksheet data (XLSX/XLSB sheet parts, inflated) handed to the spreadsheet reader, all
   * sheets together. A cell takes 15 bytes of XML at the very least and 30-40 in real files,
   * and 100-150 bytes of heap once read, at about 2.5 s and 550 MB peak RSS per million cells
   * for the whole conversion (bench: a 1,000,000-cell XLSX): 64 MiB holds a 1,000,000-cell
   * workbook (~40 MB) with room to spare, and keeps the densest encoding under the worker's
   * heap and within the default deadline. Sheet data past it is cut after the last complete
   * row, with a warning.
   */
  spreadsheetSheetBytes: 64 * MiB,
  /**
   * The same for an OpenDocument spreadsheet's content.xml, which spends about 110 bytes of
   * XML on a cell: 128 MiB is a 1,000,000-cell workbook, read in about 15 s.
   */
  spreadsheetOdsContentBytes: 128 * MiB,
  /**
   * Cells one spreadsheet may expand to where the file only counts them (OpenDocument's
   * repeated rows and columns, BIFF's multi-cell records): 4 million is ~500 MB read, and more
   * Markdown than spreadsheetMarkdownBytes would keep anyway.
   */
  spreadsheetCells: 4_000_000,
  /**
   * Digit counts in an OpenDocument number style (`number:decimal-places`, `min-integer-digits`,
   * ...). SheetJS writes such a style into a format string one character at a time: a count of
   * 99999999999 in a 5 KB file held a worker for 25-47 s and ran it out of memory. Excel shows at
   * most 30 decimals; larger counts are read as this many.
   */
  odsNumberStyleDigits: 255,
  /**
   * Markdown produced from one workbook. Past 50 MB the output is no longer something a
   * reader (human or model) uses; rows beyond it are cut with a warning naming sheet and row.
   */
  spreadsheetMarkdownBytes: 50 * MiB,
  /**
   * Paragraphs and table cells kept from one Word 97-2003 (.doc) document. A 50 MB document of
   * real text has well under a million; each costs about 1 KB as tree nodes downstream, and a
   * file of nothing but paragraph or cell marks would otherwise claim tens of millions.
   */
  docParagraphs: 2_000_000,
  /**
   * Records read from one PowerPoint 97-2003 (.ppt) document stream. A 50 MB stream holds at
   * most ~6 million 8-byte records, real decks well under 100k; each read costs an object (about
   * 100 bytes) while its container is processed, and the persist directory
   * can point many slides at the same bytes, so reads, not bytes, are what is bounded.
   */
  pptRecords: 1_000_000,
  /**
   * Shape group nesting in a PowerPoint slide drawing. PowerPoint's UI nests groups a handful
   * deep; the shape walker recurses once per level.
   */
  pptShapeDepth: 64,
  /**
   * Paragraphs kept from one PowerPoint 97-2003 deck. Even decks of a thousand slides have
   * well under 100k; each costs about 1 KB as tree nodes downstream, and a text of nothing
   * but paragraph marks would otherwise claim millions.
   */
  pptParagraphs: 250_000,
  /**
   * Group nesting in an RTF document. Word's deepest (nested tables in fields in notes) stays
   * under 100; the interpreter keeps one state per open group, and deeper groups are skipped.
   */
  rtfGroupDepth: 1024,
  /**
   * One image embedded as a `data:` URI. Real illustrations stay far below; a larger "image"
   * is a decompression bomb, and its base64 string would approach V8's string-length cap.
   */
  embeddedImageBytes: 64 * MiB,
  /**
   * Pixels of one page rendered for OCR. At the OCR resolution (200 dpi) a Letter page is
   * 3.7 Mpx and an A3 or 11x17 in page 7.8 Mpx. Bigger pages (posters, scans that claim 96 dpi)
   * are rendered coarser: recognition CPU grows with pixels (a 20 Mpx page took 4 s), the
   * canvas takes 4 bytes a pixel, and text still reads well down to ~120 dpi.
   */
  ocrRenderPixels: 12_000_000,
  /**
   * Wall time each step of one page's OCR (rendering, each Tesseract run) may take. A dense
   * page takes 1-3 s of CPU; past a minute the page is noise or hostile, and that page is given
   * up rather than the request.
   */
  ocrPageMs: 60_000,
  /**
   * Bytes of hOCR that Tesseract may print for one page. A dense page gives ~100 bytes a word
   * and well under 100 kB; more is a runaway on noise, cut before it fills the heap.
   */
  ocrOutputBytes: 16 * MiB,
  /**
   * Pixels of one image upload (one frame of it), read from its header before anything is
   * decoded. A 600 dpi A3 scan is ~70 Mpx and a 50 MP camera photo 50 Mpx; a few bytes of PNG
   * or GIF can claim billions (decompression bombs). Decoding 100 Mpx (and shrinking it to
   * ocrRenderPixels) measured 0.5-0.8 s and 150-200 MB of RSS with sharp, which streams; 1.5 s
   * and 770 MB for a BMP, which Skia decodes whole at four bytes a pixel: within workerOffHeapMb.
   */
  imagePixels: 100_000_000,
  /**
   * Frames (pages) read from one multi-page TIFF; the rest are left out with a warning, and cut
   * from the file before libvips opens it (it walks every page at each opening: 8-16 s for a
   * 40 MB file of 400,000 pages). Each frame is OCR'd like a scanned page (1-3 s of CPU), so
   * even the 300 s deadline reads about a hundred; a 50 MB fax TIFF can hold thousands.
   */
  imageFrames: 100,
  /** Default per-request deadline and its ceiling, from the contract. */
  timeoutDefaultMs: 30_000,
  timeoutMaxMs: 300_000,
  /** Upstream's lower bound for `timeout`: under a second nothing useful can finish. */
  timeoutMinMs: 1_000,
  /** Upstream's bounds for a session's `ttl` (seconds) and its default (behaviour doc §7). */
  sessionTtlMinS: 30,
  sessionTtlMaxS: 3600,
  sessionTtlDefaultS: 600,
  /** Upstream's bounds for `activityTtl`, the idle time after which a session ends. */
  sessionActivityTtlMinS: 10,
  sessionActivityTtlMaxS: 3600,
  sessionActivityTtlDefaultS: 300,
  /** Upstream's bound on a profile name; names become hashed folder names, never paths. */
  profileNameChars: 128,
  /**
   * Time Chromium may take to answer on its CDP pipe. It takes 0.3-1 s on an idle machine and
   * a few seconds on a loaded one; past 30 s it is not coming up, and create fails with 502.
   */
  browserStartMs: 30_000,
  /**
   * Time a browser gets to close on Browser.close (flushing cookies to its profile) before its
   * process group is killed. An idle Chromium exits in well under a second, but at sessionNice
   * on a machine busy with other work it can take several, and one killed early loses the
   * cookies a saved profile should keep; the wait ends as soon as it exits.
   */
  browserCloseGraceMs: 10_000,
  /**
   * Time a killed browser's processes get to be gone before its session ends anyway: a renderer
   * holding a large heap takes a while to free it, seconds on a busy machine, and a session that
   * reads as destroyed has given its memory back to the next one.
   */
  browserGroupExitMs: 10_000,
  /**
   * Browsers starting at once; more creates wait their turn inside their own request, so that
   * when the CPU is short each start gets enough of it to finish within browserStartMs rather
   * than all crawling together. A start takes 0.3-1 s of a core. Ten creates at once on two busy
   * cores (nice 10): all up in 10-13 s with no limit, 19-22 s with 4, 28-45 s with 2; the parses
   * beside them were as fast in all three (sessionNice is what protects those).
   */
  sessionLaunches: 4,
  /**
   * Niceness of every process of a session (its browser's, its execute runs). At 10 a busy one
   * gets about a tenth of a core's share against a conversion at 0, so sessions use idle CPU but
   * cannot starve parses (a burst of creates then takes longer instead).
   */
  sessionNice: 10,
  /**
   * Private memory (resident, not shared) one session's processes may hold together: the
   * default of QUIRE_SESSION_MEMORY_MB. An idle session holds ~220 MB by this count and a heavy
   * single-page app 400-700 MB; one page's JavaScript took its session from 0.9 to 3.0 GB.
   */
  sessionMemoryMb: 1024,
  /**
   * How often each session's memory and processes are measured (one /proc scan for all
   * sessions, ~1-4 ms): JavaScript allocates up to ~1 GB/s, so a session overshoots its cap by a
   * few hundred MB before it ends.
   */
  sessionMemoryWatchMs: 250,
  /**
   * Processes one session's browser may run. It starts 8-9 (browser, zygotes, GPU, network,
   * storage, a renderer) and gains about one renderer per site open at once; more is a runaway.
   */
  sessionProcesses: 128,
  /**
   * Bytes a session's folder (profile, downloads, uploads, execute scratch) may take on disk,
   * and a saved profile too: the default of QUIRE_SESSION_DISK_MB. A fresh profile takes ~7 MB,
   * a day of ordinary browsing tens; one page wrote 512 MB in 4.6 s, while Chromium offers every
   * origin a quota of 10 GiB on a large disk (Storage.overrideQuotaForOrigin did not lower it).
   */
  sessionDiskMb: 512,
  /**
   * How often session folders are measured (one `du` over all of them, outside Quire's event
   * loop): that page wrote ~110 MB/s, so a session overshoots its cap by about that much.
   */
  sessionDiskWatchMs: 1_000,
  /**
   * Chromium's HTTP cache per session (--disk-cache-size). It sizes the cache from the free disk
   * otherwise, up to hundreds of MB that would count against the session's disk cap.
   */
  sessionHttpCacheBytes: 64 * MiB,
  /**
   * Free disk under the data folder below which no new session starts: the default of
   * QUIRE_SESSIONS_MIN_FREE_DISK_MB. Four sessions at their disk cap, so that sessions filling
   * their folders leave room for the store (SQLite) on the same disk.
   */
  sessionsMinFreeDiskMb: 4 * 512,
  /**
   * One CDP message a client may send. Playwright sends files given to setInputFiles inline,
   * base64 in one message; 64 MiB covers the 50 MB upload size used everywhere else in Quire.
   */
  cdpClientMessageBytes: 64 * MiB,
  /**
   * One CDP message from the browser to a client. Full-page screenshots and heap snapshots
   * chunks run to tens of MB; Chromium itself caps its messages at 256 MiB.
   */
  cdpBrowserMessageBytes: 256 * MiB,
  /**
   * Bytes queued in memory to one CDP client before the relay keeps the rest in a file in the
   * session's folder (all clients share the browser's one pipe, so the browser cannot be left to
   * hold them): a busy page's events for a second or more; a client that does not read would
   * otherwise grow Quire's memory by tens of MB a second (40 MB/s from a page logging 1 MB lines).
   */
  cdpClientBufferedBytes: 16 * MiB,
  /** WebSocket clients of a session (CDP relay and live viewers each); more is a runaway loop. */
  sessionSockets: 64,
  /** Ping interval of relay and viewer sockets, so idle proxies between do not drop them. */
  socketPingMs: 30_000,
  /**
   * How often a session's last activity is written to the store; in between it lives in memory
   * (and lists read it from there), so a busy CDP client does not turn into a write per message.
   */
  activityFlushMs: 2_000,
  /**
   * How often a cluster node that holds sessions renews its entry in Redis (where other API
   * processes find its address) and checks for nodes whose entry lapsed. A renewal is one SET.
   */
  nodeHeartbeatMs: 2_000,
  /**
   * Lifetime of a node's entry: six heartbeats, so only a node that is gone (or cut off from
   * Redis, or stalled for 12 s) loses it, not one whose event loop was busy for a few seconds.
   */
  nodeTtlMs: 12_000,
  /**
   * How long a node's entry must stay missing, as seen by the node that checks, before its
   * sessions are marked destroyed: a Redis restarted without persistence loses every entry at
   * once, and each live node writes its own back within a heartbeat.
   */
  nodeLostAfterMs: 4_000,
  /** Time to connect to the node holding a session, when a request is forwarded to it. */
  nodeConnectMs: 5_000,
  /**
   * How old a forwarded request's signature may be (either way, for clocks that differ between
   * machines); its nonce is remembered in Redis for twice this, so a captured request cannot be
   * replayed.
   */
  forwardSkewMs: 60_000,
  /**
   * Bytes a live viewer may have queued before frames to it are skipped, so one slow viewer
   * neither holds memory nor slows the others: about ten frames at the screencast's size.
   */
  viewerBufferedBytes: 2 * MiB,
  /** Text one paste from an interactive live viewer may insert: a long form answer or a page of text. */
  livePasteChars: 100_000,
  /**
   * One message from a live viewer: input events are tiny, a paste is at most livePasteChars
   * at 6 bytes each as JSON escapes. The socket is closed past it, so a holder of the view
   * token cannot make the server parse CDP-sized messages.
   */
  viewerMessageBytes: 1 * MiB,
  /** Screencast frame size and JPEG quality: readable text at a few hundred kB/s. */
  screencastMaxWidth: 1280,
  screencastMaxHeight: 960,
  screencastQuality: 70,
  /** Upstream's bounds for execute: code of at most 100,000 bytes, 1-300 s, 30 s by default. */
  executeCodeBytes: 100_000,
  executeTimeoutMinS: 1,
  executeTimeoutMaxS: 300,
  executeTimeoutDefaultS: 30,
  /** stdout and stderr kept from one execute, each; the rest is cut and said to be. */
  executeOutputBytes: 1 * MiB,
  /**
   * Execute calls running at once in one session. Each is a Node process of ~60-100 MB driving
   * the same pages; two cover a caller overlapping calls, more is a runaway loop.
   */
  sessionExecutions: 2,
  /** Heap of the process that runs an execute: Playwright's client needs ~60 MB. */
  executeHeapMb: 256,
  /**
   * Bytes of one fetched page or document, counted as they are decompressed (so a gzip bomb is
   * stopped at this size, whatever it claims): the same 50 MB an upload may take, since a
   * fetched file goes through the same conversion.
   */
  scrapeBodyBytes: 50 * MiB,
  /** Redirects followed for one scrape: browsers stop at 20, upstream's fetch at 10 (ERR_TOO_MANY_REDIRECTS). */
  scrapeRedirects: 10,
  /** Characters of a scrape's `url`: browsers and CDNs refuse URLs much past 8 KB. */
  scrapeUrlChars: 8_192,
  /**
   * Selectors one `attributes` format may list: each walks the whole page, so a list of
   * thousands would hold a conversion worker for what no page needs (the answer's budget bounds
   * what they find).
   */
  attributeSelectors: 100,
  /** Bytes of the caller's `headers` together: servers commonly refuse request headers past 8-16 KB. */
  scrapeHeaderBytes: 16 * 1024,
  /** Headers of one origin answer: Node's default cap, so a server cannot flood the parser. */
  scrapeResponseHeaderBytes: 16 * 1024,
  /** URLs of a site shown to the model for a crawl preview: upstream's 120, a few thousand tokens. */
  previewSiteUrls: 120,
  /** Bytes of a sitemap or start page scanned for those URLs: their links come early, and the scan runs in the API process. */
  previewScanBytes: 2 * MiB,
  /** A crawl preview's deadline (it has no `timeout`): two fetches and up to two model calls. */
  previewTimeoutMs: 60_000,
  /** Characters of a crawl preview's prompt (upstream's bound). */
  previewPromptChars: 10_000,
  /**
   * Pages the scrape renderer holds open at once on a node; more wait their turn within their
   * timeout. A heavy page takes 100-400 MB and most of a core while it loads; four keep the pool
   * near 1-2 GB and, at sessionNice, leave conversions the CPU they need.
   */
  renderPages: 4,
  /**
   * Pages one render browser serves before it is replaced (once idle): Chromium's memory creeps up
   * with what it has loaded (caches, fonts, leaked renderers), and a fresh start costs 0.3-1 s,
   * under 1% of a hundred renders.
   */
  renderPagesPerBrowser: 100,
  /**
   * Time the render browser may take to start. At sessionNice on a 2-core machine at load 30 it
   * took over 30 s (browserStartMs, which a session's create waits for); scrapes wait for it only
   * within their own timeout, so a slow start fails no scrape that had time to wait.
   */
  renderBrowserStartMs: 120_000,
  /** How long the render browser stays up without a page to render: its ~150 MB back, for a 0.3-1 s start later. */
  renderIdleMs: 60_000,
  /**
   * After load, the network must be quiet this long (no request in flight) for the page to count
   * as rendered: apps fetch their content after load, and most have it within a few hundred ms.
   */
  renderNetworkIdleMs: 300,
  /** The most a render waits for that quiet after load: a page that polls is never quiet. */
  renderNetworkIdleCapMs: 5_000,
  /**
   * The most a render waits, once the page has settled, for autoconsent (blockAds) to finish with
   * a consent popup it found: a reject is a few clicks with waits of about 0.5 s between (CMPs
   * animate, open their settings pane), 1-2 s in all, and a CMP whose popup never shows is looked
   * for 5 s. Never more than half of what the scrape has left, so the page is still read in time.
   */
  renderConsentMs: 5_000,
  /** Actions in one scrape: upstream's recipes use a handful; more is a script, for interact sessions. */
  renderActions: 50,
  /** A full-page screenshot's height: past ~16k px Chromium tiles the capture and PNGs reach tens of MB. */
  renderFullPageHeightPx: 16_384,
  /** How long a screenshot served by Quire stays reachable (the contract's 24 hours). */
  screenshotTtlMs: 24 * 60 * 60 * 1000,
  /** How often expired screenshots are deleted from the data folder. */
  screenshotSweepMs: 10 * 60 * 1000,
  /**
   * Compressed bytes the scrape cache holds together (QUIRE_SCRAPE_CACHE_MB); past it the oldest
   * entries go. A page's answer compresses to 5-50 KB, so 256 MB keeps tens of thousands of pages,
   * while staying small beside the data folder or a PostgreSQL database.
   */
  scrapeCacheBytes: 256 * MiB,
  /**
   * The oldest a cached scrape may be: past it the entry is deleted whatever maxAge a later
   * request sends, so that fetched content does not stay in the store indefinitely. A week is
   * three times the contract's default maxAge (2 days).
   */
  scrapeCacheRetentionMs: 7 * 24 * 60 * 60 * 1000,
  /**
   * How long change tracking keeps a page's last Markdown when nobody tracks it again: long
   * enough for a monthly check to find its baseline, short enough that pages a team stopped
   * watching leave the store.
   */
  changeBaselineRetentionMs: 90 * 24 * 60 * 60 * 1000,
  /**
   * The longest Markdown kept as a change-tracking baseline (characters): a page past it is
   * reported without being kept (a warning says so), so that one huge page cannot fill the store.
   */
  changeBaselineChars: 5 * 2 ** 20,
  /**
   * How far after a product page's title (characters of its text) the evidence for a product is
   * looked for: a buy box sits near the title, and prices further down are other products'.
   */
  productEvidenceChars: 3_000,
  /**
   * Credits a PDF holds before its pages are read when neither its page tree (compressed out of
   * sight) nor `maxPages` says how many it has: the most pages a parse reads, so a balance that
   * pays for them all is never short; what the answer does not use goes back at once.
   */
  pdfPagesHeldUnknown: 10_000,
  /** Sentences an offline `question` answer quotes at most: an answer, not a summary. */
  answerSentences: 3,
  /** Passages offline `highlights` returns at most: the few that bear on the query, not the page. */
  highlightPassages: 5,
  /** The contract's default maxAge for scrape: two days. */
  scrapeCacheDefaultMaxAgeMs: 2 * 24 * 60 * 60 * 1000,
  /**
   * A cached answer holding screenshot URLs is served only while they have at least this long to
   * live, so that a client that gets one from the cache still has time to download it.
   */
  scrapeCacheCaptureMarginMs: 60 * 60 * 1000,
  /** How often entries past their end are deleted from the store (besides on every write). */
  scrapeCacheSweepMs: 10 * 60 * 1000,
  /**
   * Distinct classes, ids and link targets of one fetched page looked up in the ad filter lists
   * (each kind). Real pages have hundreds to a few thousand; the lookup hashes each, so a
   * generated page with millions costs the API process a bounded scan instead.
   */
  adFilterPageFeatures: 20_000,
  /**
   * Heap of the thread that parses the ad filter lists: the ~5 MB Debian ships took ~160 MB;
   * lists that need over six times that are not those, and blocking is left off (logged).
   */
  adFilterBuildHeapMb: 1024,
  /**
   * Path segments past which a discovered URL is taken for a crawler trap (relative links that
   * nest without end, /a/b/c/a/b/c/...). Real sites seldom pass 10; 20 leaves deep docs trees room.
   */
  crawlTrapPathSegments: 20,
  /**
   * Times one path segment may occur in a URL before it is taken for a loop of relative links:
   * /a/b/a/b/a/b. Twice happens on real sites (/2024/05/05); three times almost never.
   */
  crawlTrapSegmentRepeats: 3,
  /** Characters past which a discovered URL is taken for a trap: about where browsers and servers stop. */
  crawlTrapUrlChars: 2_000,
  /**
   * New URLs one crawl admits per pattern (host + path with digit runs as one digit, query names
   * without values): bounds endless calendars (/cal/2024/01/05, five years of days) and query
   * variants (?page=1..∞, ?q=...). A catalogue of numbered pages (/product/123) is cut at the
   * same number: a fifth of upstream's default crawl limit, so a trap wastes at most that much.
   */
  crawlVariantsPerPattern: 2_000,
  /** The most a robots.txt Crawl-delay is honoured for, in seconds: upstream's own bound on `delay`. */
  robotsCrawlDelayMaxS: 60,
  /**
   * Characters of a robots.txt read: Google's 500 KiB. Rules past it are ignored, and a generated
   * file of a million rules cannot make every link check slow.
   */
  robotsChars: 500 * 1024,
  /** Bytes of one sitemap once decompressed: the sitemaps protocol's cap (50 MB). Larger ones are skipped. */
  sitemapBytes: 50 * MiB,
  /** Patterns in includePaths or excludePaths, and characters in one: more is a mistake, not a crawl. */
  crawlPatterns: 100,
  crawlPatternChars: 1_000,
  /** A crawl's default page limit: upstream's. */
  crawlDefaultPages: 10_000,
  /** The most pages one crawl may ask for: ten times the default; a larger site is several crawls. */
  crawlMaxPages: 100_000,
  /** The longest `delay` between pages, in seconds: upstream's bound. */
  crawlMaxDelayS: 60,
  /**
   * Pages one job fetches at once when the request names no maxConcurrency: enough to keep a
   * two-worker pool busy while pages are fetched, few enough to be polite to one host.
   */
  crawlDefaultConcurrency: 4,
  /** The most pages one job fetches at once whatever it asks: a per-host bound on Quire's politeness. */
  crawlMaxConcurrency: 16,
  /** Sitemap files one crawl or map reads: upstream's 20, doubled for sites that split by section. */
  crawlSitemaps: 40,
  /** URLs one map takes from sitemaps before ranking: its largest limit, and a sitemap index's worth. */
  mapSitemapUrls: 100_000,
  /** URLs one batch scrape may list: upstream accepts any number; this keeps one request's body sane. */
  batchMaxUrls: 10_000,
  /** URLs one extract may list: upstream's beta bound ("Maximum of 10 URLs allowed per request"). */
  extractMaxUrls: 10,
  /**
   * Pages one `/*` URL of an extract expands to, unless its `limit` says otherwise: each is scraped
   * and read by the extractor, so a whole site's map would cost the team a crawl's credits.
   */
  extractWildcardPages: 20,
  /** The most a `limit` may ask of one `/*` URL: an extract reads pages, it is not a crawl of a whole site. */
  extractMaxWildcardPages: 1_000,
  /** An extract's prompt and system prompt, together: what a json format's prompt may hold. */
  extractPromptChars: 10_000,
  /** One warning of an extract's answer, in characters: a page's own warning is quoted in one. */
  extractWarningChars: 2_000,
  /**
   * The shortest time between two checks of a monitor: each check scrapes every target, so a
   * monitor that checks more often is a load generator pointed at someone's site.
   */
  monitorMinIntervalMs: 5 * 60_000,
  /** How often each API process looks for monitors due and checks that have ended. */
  monitorPollMs: 1_000,
  /** How long a monitor keeps its checks by default, and at most (upstream's retentionDays). */
  monitorDefaultRetentionDays: 30,
  monitorMaxRetentionDays: 365,
  /** Targets of one monitor, and URLs of one scrape target: a check is a batch, not a crawl of the web. */
  monitorMaxTargets: 10,
  monitorMaxUrls: 1_000,
  /** Monitors one team may keep: each holds a schedule every API process polls. */
  monitorsPerTeam: 500,
  /** Pages of a check one answer lists by default, and at most. */
  monitorCheckPage: 100,
  monitorCheckMaxPage: 1_000,
  /** Monitors and checks one list answer holds by default, and at most. */
  monitorListPage: 50,
  monitorListMaxPage: 200,
  /** Changed pages one monitor webhook event lists: the rest are in the check (getMonitorCheck). */
  monitorWebhookPages: 100,
  /** A monitor's name and goal, in characters. */
  monitorNameChars: 200,
  monitorGoalChars: 2_000,
  /** A map's `search`, in characters. */
  mapSearchChars: 1_000,
  /** A map's default and largest `limit`: upstream's. */
  mapDefaultLinks: 5_000,
  mapMaxLinks: 100_000,
  /** How long a map may take without a `timeout` of its own: sitemaps of a large site, read once. */
  mapDefaultTimeoutMs: 120_000,
  /**
   * How long a finished crawl or batch stays readable after its last read (upstream: 24 hours,
   * reset by every read), after which it and its documents are purged.
   */
  jobRetentionMs: 24 * 60 * 60 * 1000,
  /**
   * How long a process's lease on a job lasts without renewal; renewed at a third of it. A process
   * that dies leaves its jobs to another (or to itself, restarted) after at most this.
   */
  jobLeaseMs: 30_000,
  /** How often a process looks for jobs nobody drives (new ones, or ones whose driver died). */
  jobPollMs: 2_000,
  /** Page documents one status answer holds by default, and at most: upstream's 100 and its pagination cap. */
  jobStatusPage: 100,
  jobStatusMaxPage: 1_000,
  /** Bytes of documents in one status answer: upstream's 10 MiB; the document that crosses it goes to the next. */
  jobStatusBytes: 10 * MiB,
  /**
   * Bytes of a webhook's `metadata` as JSON: it is copied into every event's payload (one per page),
   * so a crawl of 100,000 pages would store it that many times; ids and labels fit many times over.
   */
  webhookMetadataBytes: 16 * 1024,
  /** How long a webhook receiver has to answer 2xx: upstream's 10 s for v1 and v2 payloads. */
  webhookTimeoutMs: 10_000,
  /**
   * Waits between a webhook event's failed attempts, the last repeated: upstream's documented
   * 1, 5 and 15 minutes, after a first quick retry for a receiver that was restarting.
   */
  webhookRetryDelaysMs: [10_000, 60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000],
  /**
   * An event is retried while its next attempt, by the schedule above, falls within this time of
   * its first: a job's retention (24 hours), after which its outbox goes with it. 28 attempts.
   */
  webhookRetryWindowMs: 24 * 60 * 60 * 1000,
  /** Webhook deliveries one process runs at once (each to another job; a job's events go one at a time). */
  webhookConcurrency: 8,
  /**
   * How long a process's claim on a webhook delivery lasts: past the 10 s a delivery may take (the
   * address lookup included), so it never lapses mid-delivery; one whose process died goes to
   * another after at most this.
   */
  webhookLeaseMs: 60_000,
  /** How often a process looks for due webhook deliveries it was not woken for (retries, other processes' leftovers). */
  webhookPollMs: 5_000,
  /**
   * How often a job's watcher (its WebSocket) looks in the store for newly finished documents:
   * upstream's 1 s. Each look is two small reads (the job, its document count).
   */
  jobWatchPollMs: 1_000,
  /**
   * Watcher sockets one team holds open at once on one process. A dashboard watches a few jobs;
   * each watcher costs a socket and two store reads a second (200 a second at this bound).
   */
  jobWatchersPerTeam: 100,
  /** Bytes of one message a watcher's client may send: it has nothing to say, and it is ignored. */
  jobWatchClientMessageBytes: 1024,
  /**
   * How long shutdown waits for a watcher's client to answer the close (1001) before cutting it
   * off: ws's own wait is 30 s, and an open socket holds the HTTP server's close.
   */
  jobWatchCloseMs: 1_000,
} as const;
