/**
 * Long PDFs on two threads whatever the machine (by default one below 4 cores), as the suite's
 * servers read them, so that layer-1 tests read pages on both. The PDF converter reads
 * QUIRE_PDF_THREADS once, as it loads: import this first, before anything that loads it.
 */
process.env.QUIRE_PDF_THREADS = '2';
