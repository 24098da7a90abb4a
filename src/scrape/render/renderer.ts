import path from 'node:path';
import type { Config } from '../../config.ts';
import type { NetPolicy } from '../../sessions/net-policy.ts';
import { CaptureStore } from './captures.ts';
import type { Capture, RenderedPage } from './render-page.ts';
import { RenderPool } from './render-pool.ts';

/** What a scrape renders with: the browser pool, and where its screenshots and PDFs go. */
export class ScrapeRenderer {
  readonly pool: RenderPool;
  readonly captures: CaptureStore;

  constructor(config: Config, policy: NetPolicy) {
    this.pool = new RenderPool({
      executable: config.QUIRE_CHROMIUM_PATH,
      dir: path.join(config.QUIRE_DATA_DIR, 'render'),
      policy,
    });
    this.captures = new CaptureStore(
      path.join(config.QUIRE_DATA_DIR, 'scrape-captures'),
      config.QUIRE_SCRAPE_CAPTURES === 'data',
    );
  }

  /** `screenshot` and `actions` of the answer's data, as JSON members to add to it ("" when none). */
  async answerFields(page: RenderedPage, zeroDataRetention: boolean, base: string): Promise<string> {
    const publish = (capture: Capture) => this.captures.publish(capture, zeroDataRetention, base);
    const fields: Record<string, unknown> = {};
    if (page.screenshot) fields.screenshot = await publish(page.screenshot);
    if (page.actions) {
      const { screenshots, scrapes, javascriptReturns, pdfs } = page.actions;
      fields.actions = {
        screenshots: await Promise.all(screenshots.map(publish)),
        scrapes,
        javascriptReturns,
        pdfs: await Promise.all(pdfs.map(publish)),
      };
    }
    const json = JSON.stringify(fields);
    return json === '{}' ? '' : json.slice(1, -1);
  }

  async close(): Promise<void> {
    this.captures.close();
    await this.pool.close();
  }
}
