import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { filterCompactRules, type IndexedCMPRuleset } from '@duckduckgo/autoconsent';
import type { Frame, Page } from 'puppeteer-core';
import { limits } from '../../limits.ts';

/**
 * Cookie and consent popups under `blockAds`, with DuckDuckGo's autoconsent (MPL-2.0): its
 * content script and its rules for known consent management platforms (CMPs) find a CMP's popup
 * and opt out of it (reject, or "necessary only"), as the DuckDuckGo browsers do. Everything it
 * needs ships in the npm package; nothing is fetched.
 *
 * It runs once the page has settled rather than from the start of every document: the script
 * (137 KB, and the rules) then compiles once per frame instead of in every document and frame
 * the page loads on the way, and a single detection pass on the page as it will be read says
 * whether there is a CMP at all, so a page without one costs that pass and no retries.
 */

/** Where the page script keeps its state, for the render to read. */
const handle = '__quireConsent';

/** Autoconsent's settings: opt out, by the CMP rules only. */
const config = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  // Besides hiding the CMPs' containers until the popup is dealt with, prehide marks the end of a
  // CMP found without a popup: autoconsent undoes it only then, on a finished opt-out and when
  // nothing was found; its timeout is pushed past any render so that it does not undo it earlier.
  enablePrehide: true,
  prehideTimeout: 10 * 60_000,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  // The heuristic clicks buttons by their words on popups no rule knows, and reads the page's
  // innerText (a layout) on each pass: not for pages read unattended.
  enableHeuristicDetection: false,
  heuristicMode: 'off',
  // The page has settled: one pass sees it as it will be read.
  detectRetries: 0,
  // Run in the page's own world (Runtime.evaluate), so its snippets for CMPs' JavaScript APIs are
  // called directly rather than sent out to be evaluated.
  isMainWorld: true,
  logs: {
    lifecycle: false,
    rulesteps: false,
    detectionsteps: false,
    evals: false,
    errors: false,
    messages: false,
    waits: false,
  },
};

/**
 * Run in a frame before autoconsent's own script: answers its `init` with the settings and the
 * rules (its host would, over a message channel), follows its state from its reports, and offers
 * `settled()` (a promise, kept once autoconsent is done with the frame) and `clean()` (removes the
 * consent containers: what autoconsent hid and every known CMP's container, when it found a CMP).
 * A frame that already has it (a second call, after actions) is left as it is.
 */
const wrapper = (rules: string) => `(() => {
  if (window.${handle}) return;
  const config = ${JSON.stringify(config)};
  const rules = { compact: JSON.parse(${rules}) };
  const finished = new Set(['nothingDetected', 'done', 'optOutSucceeded', 'optOutFailed', 'optInSucceeded', 'optInFailed']);
  const searching = new Set(['loading', 'waitingForInitResponse', 'initialized', 'started', 'nothingDetected']);
  let state = { lifecycle: 'loading', prehideOn: false };
  let prehidden = false;
  let prehide = '';
  let waiting = [];
  // A CMP found without a popup ends with its prehide undone and no other sign.
  const isSettled = () => finished.has(state.lifecycle) || (state.lifecycle === 'cmpDetected' && prehidden && !state.prehideOn);
  const styleText = (id) => document.getElementById(id)?.textContent ?? '';
  // The selector lists of a style autoconsent wrote ("a, b { ... } c { ... }").
  const selectorLists = (css) => [...css.matchAll(/([^{}]+)\\{[^}]*\\}/g)].map((m) => m[1].trim()).filter(Boolean);
  const matches = (list) => {
    try {
      return [...document.querySelectorAll(list)];
    } catch {
      // One selector this browser cannot parse spoils the list: each is tried alone.
      return list.split(',').flatMap((one) => { try { return [...document.querySelectorAll(one)]; } catch { return []; } });
    }
  };
  window.autoconsentSendMessage = (message) => {
    if (message.type === 'init')
      queueMicrotask(() => window.autoconsentReceiveMessage({ type: 'initResp', config, rules }));
    else if (message.type === 'report') {
      state = message.state;
      prehidden ||= state.prehideOn;
      // The known CMPs' containers, kept: autoconsent drops the style once it is done.
      prehide ||= styleText('autoconsent-prehide');
      if (isSettled()) for (const resolve of waiting.splice(0)) resolve();
    }
    return Promise.resolve();
  };
  Object.defineProperty(window, '${handle}', { value: Object.freeze({
    settled: () => isSettled() ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve)),
    clean: () => {
      if (searching.has(state.lifecycle)) return 0;
      let removed = 0;
      for (const list of selectorLists(prehide + styleText('autoconsent-css-rules')))
        for (const e of matches(list)) if (e.isConnected) { e.remove(); removed++; }
      return removed;
    },
  }) });
})();
`;

interface Assets {
  bundle: string;
  rules: IndexedCMPRuleset;
  signature: string;
}

let assets: Assets | undefined;

/** Autoconsent's script for Playwright/Puppeteer hosts and its rules (the compact encoding, opt-out only), read once. */
function load(): Assets {
  if (assets === undefined) {
    const bundle = fs.readFileSync(
      new URL('autoconsent.playwright.js', import.meta.resolve('@duckduckgo/autoconsent')),
      'utf8',
    );
    const text = fs.readFileSync(
      fileURLToPath(import.meta.resolve('@duckduckgo/autoconsent/rules/compact-rules.json')),
      'utf8',
    );
    const signature = createHash('sha256')
      .update(bundle)
      .update(text)
      .update(JSON.stringify(config))
      .digest('hex')
      .slice(0, 16);
    assets = { bundle, rules: JSON.parse(text) as IndexedCMPRuleset, signature };
  }
  return assets;
}

/** Which autoconsent (code, rules and settings) a render applies, as a short hash: part of the scrape cache's key. */
export function consentSignature(): string {
  return load().signature;
}

/** Autoconsent started in `frame`, with the rules for its URL (the generic ones and its site's own). */
async function start(frame: Frame, mainFrame: boolean): Promise<void> {
  const { bundle, rules } = load();
  const own = filterCompactRules(rules, { url: frame.url(), mainFrame });
  // As a JSON string: V8 parses one several times faster than the same object as a literal.
  await frame.evaluate(`${wrapper(JSON.stringify(JSON.stringify(own)))}\n${bundle}\nundefined`);
}

/**
 * Once the page has settled: autoconsent started in the main frame and its web frames, waited for
 * until it is done with each (at most `limits.renderConsentMs`, and half of what the scrape has
 * left), then the consent containers removed from the main document, whose HTML is read. Frames
 * that navigated, closed or would not run it are left alone.
 */
export async function settleConsent(page: Page, remaining: number, signal: AbortSignal): Promise<void> {
  const wait = Math.min(limits.renderConsentMs, remaining / 2);
  const main = page.mainFrame();
  const frames = page.frames().filter((f) => f === main || /^https?:/.test(f.url()));
  const done = Promise.all(
    frames.map((frame) =>
      start(frame, frame === main)
        .then(() => frame.evaluate(`window.${handle}?.settled()`))
        .catch(() => {}),
    ),
  );
  const stop = new AbortController();
  const timer = sleep(wait, undefined, { signal: AbortSignal.any([signal, stop.signal]) });
  try {
    await Promise.race([done, timer]);
  } finally {
    stop.abort();
    timer.catch(() => {});
  }
  await page.evaluate(`window.${handle}?.clean()`).catch(() => {
    // The page navigated or closed: it is read as it is.
  });
}
