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

  /** `screenshot` and `actions` of the answer's data, their captures published (none when not asked for). */
  async answerFields(
    page: RenderedPage,
    zeroDataRetention: boolean,
    base: string,
  ): Promise<{ screenshot?: string; actions?: unknown }> {
    const publish = (capture: Capture) => this.captures.publish(capture, zeroDataRetention, base);
    const fields: { screenshot?: string; actions?: unknown } = {};
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
    return fields;
  }

  async close(): Promise<void> {
    this.captures.close();
    await this.pool.close();
  }
}
