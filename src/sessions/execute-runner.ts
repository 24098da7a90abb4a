// Runs one execute call in its own process under Node's permission model: the caller's code
// gets `page`, `context` and `browser` (Playwright, connected through the session's CDP relay),
// prints to stdout/stderr, and its return value is written to fd 3 as a string.
import fs from 'node:fs';
import { chromium } from 'playwright-core';

const code = fs.readFileSync(0, 'utf8');
const cdpUrl = process.env.QUIRE_EXECUTE_CDP_URL ?? '';

type Body = (page: unknown, context: unknown, browser: unknown) => Promise<unknown>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => Body;

function asText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

const browser = await chromium.connectOverCDP(cdpUrl);
const context = browser.contexts()[0] ?? (await browser.newContext());
const page = context.pages()[0] ?? (await context.newPage());
let result = '';
try {
  result = asText(await new AsyncFunction('page', 'context', 'browser', code)(page, context, browser));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}
fs.writeSync(3, result);
// Disconnects from the session; the browser and its pages stay.
await browser.close();
