/**
 * Examples for each operation of the OpenAPI document, as `x-codeSamples` (which the /docs page
 * shows beside each operation): curl, the JS SDK (@mendable/firecrawl-js) and the Python SDK
 * (firecrawl-py), both pointed at Quire. Where an SDK has no call for an operation, the sample
 * says so and makes the plain HTTP request instead.
 */

const base = 'http://localhost:3002';
const auth = '-H "Authorization: Bearer $QUIRE_API_KEY"';

/** The JS SDK's client, after the imports the sample needs besides the SDK. */
const jsClient = (imports = '') => `import Firecrawl from '@mendable/firecrawl-js';
${imports}
const firecrawl = new Firecrawl({ apiKey: process.env.QUIRE_API_KEY, apiUrl: '${base}' });
`;
const pyClient = `import os
from firecrawl import Firecrawl

firecrawl = Firecrawl(api_key=os.environ["QUIRE_API_KEY"], api_url="${base}")
`;
const pyHttp = `import os
import requests

headers = {"Authorization": f"Bearer {os.environ['QUIRE_API_KEY']}"}
`;

interface Samples {
  curl: string;
  js: string;
  python: string;
}

const samples: Record<string, Samples> = {
  parseFile: {
    curl: `curl ${auth} \\
  -F file=@report.pdf \\
  -F 'options={"formats":["markdown","links"],"parsers":[{"type":"pdf","mode":"auto","maxPages":20}]}' \\
  ${base}/v2/parse`,
    js: `${jsClient("import fs from 'node:fs';\n")}
const doc = await firecrawl.parse(
  { data: fs.readFileSync('report.pdf'), filename: 'report.pdf' },
  { formats: ['markdown', 'links'], parsers: [{ type: 'pdf', mode: 'auto', maxPages: 20 }] },
);
console.log(doc.markdown, doc.metadata);`,
    python: `${pyClient}
doc = firecrawl.parse("report.pdf")
print(doc.markdown)`,
  },
  scrapeAndExtractFromUrl: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"url":"https://example.com/report.pdf","formats":["markdown"]}' \\
  ${base}/v2/scrape`,
    js: `${jsClient()}
const doc = await firecrawl.scrape('https://example.com/report.pdf', { formats: ['markdown'] });
console.log(doc.markdown);`,
    python: `${pyClient}
doc = firecrawl.scrape("https://example.com/report.pdf", formats=["markdown"])
print(doc.markdown)`,
  },
  crawlParamsPreview: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"url":"https://example.com","prompt":"only the blog, at most 50 pages"}' \\
  ${base}/v2/crawl/params-preview`,
    js: `${jsClient()}
const options = await firecrawl.crawlParamsPreview('https://example.com', 'only the blog, at most 50 pages');
console.log(options);`,
    python: `${pyClient}
options = firecrawl.crawl_params_preview("https://example.com", "only the blog, at most 50 pages")
print(options)`,
  },
  crawlUrls: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"url":"https://example.com","limit":50,"scrapeOptions":{"formats":["markdown"]}}' \\
  ${base}/v2/crawl`,
    js: `${jsClient()}
// crawl() starts the job and polls until it ends; startCrawl() answers the id at once.
const job = await firecrawl.crawl('https://example.com', {
  limit: 50,
  scrapeOptions: { formats: ['markdown'] },
});
console.log(job.status, job.data.length);`,
    python: `${pyClient}
# crawl() starts the job and polls until it ends; start_crawl() answers the id at once.
job = firecrawl.crawl("https://example.com", limit=50)
print(job.status, len(job.data))`,
  },
  getActiveCrawls: {
    curl: `curl ${auth} ${base}/v2/crawl/active`,
    js: `${jsClient()}
const { crawls } = await firecrawl.getActiveCrawls();
for (const c of crawls) console.log(c.id, c.url);`,
    python: `${pyClient}
result = firecrawl.get_active_crawls()
for c in result.crawls:
    print(c.id, c.url)`,
  },
  getCrawlStatus: {
    curl: `curl ${auth} "${base}/v2/crawl/$CRAWL_ID?limit=50"`,
    js: `${jsClient()}
const page = await firecrawl.getCrawlStatus(crawlId, { autoPaginate: false });
console.log(page.status, page.completed, page.total, page.next);

// Or watch it over a WebSocket on the same path:
const watcher = firecrawl.watcher(crawlId, { kind: 'crawl' });
watcher.on('document', (doc) => console.log(doc.metadata?.sourceURL));
watcher.on('done', (job) => console.log(job.status));
await watcher.start();`,
    python: `${pyClient}
job = firecrawl.get_crawl_status(crawl_id)
print(job.status, job.completed, job.total, len(job.data))`,
  },
  cancelCrawl: {
    curl: `curl -X DELETE ${auth} ${base}/v2/crawl/$CRAWL_ID`,
    js: `${jsClient()}
console.log(await firecrawl.cancelCrawl(crawlId)); // true`,
    python: `${pyClient}
print(firecrawl.cancel_crawl(crawl_id))  # True`,
  },
  getCrawlErrors: {
    curl: `curl ${auth} ${base}/v2/crawl/$CRAWL_ID/errors`,
    js: `${jsClient()}
const { errors, robotsBlocked } = await firecrawl.getCrawlErrors(crawlId);
for (const e of errors) console.log(e.url, e.code, e.error);
console.log(robotsBlocked);`,
    python: `${pyClient}
result = firecrawl.get_crawl_errors(crawl_id)
for e in result.errors:
    print(e.url, e.code, e.error)
print(result.robots_blocked)`,
  },
  scrapeAndExtractFromUrls: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"urls":["https://example.com/a","https://example.com/report.pdf"],"formats":["markdown"]}' \\
  ${base}/v2/batch/scrape`,
    js: `${jsClient()}
// batchScrape() starts the job and polls until it ends; startBatchScrape() answers the id at once.
const job = await firecrawl.batchScrape(['https://example.com/a', 'https://example.com/report.pdf'], {
  options: { formats: ['markdown'] },
});
for (const doc of job.data) console.log(doc.metadata?.sourceURL, doc.markdown?.length);`,
    python: `${pyClient}
# batch_scrape() starts the job and polls until it ends; start_batch_scrape() answers the id at once.
job = firecrawl.batch_scrape(
    ["https://example.com/a", "https://example.com/report.pdf"], formats=["markdown"]
)
print(job.status, len(job.data))`,
  },
  getBatchScrapeStatus: {
    curl: `curl ${auth} "${base}/v2/batch/scrape/$BATCH_ID?limit=50"`,
    js: `${jsClient()}
const page = await firecrawl.getBatchScrapeStatus(batchId, { autoPaginate: false });
console.log(page.status, page.completed, page.total, page.next);

// Or watch it over a WebSocket on the same path:
const watcher = firecrawl.watcher(batchId, { kind: 'batch' });
watcher.on('document', (doc) => console.log(doc.metadata?.sourceURL));
watcher.on('done', (job) => console.log(job.status));
await watcher.start();`,
    python: `${pyClient}
job = firecrawl.get_batch_scrape_status(batch_id)
print(job.status, job.completed, job.total, len(job.data))`,
  },
  cancelBatchScrape: {
    curl: `curl -X DELETE ${auth} ${base}/v2/batch/scrape/$BATCH_ID`,
    js: `${jsClient()}
console.log(await firecrawl.cancelBatchScrape(batchId)); // true`,
    python: `${pyClient}
print(firecrawl.cancel_batch_scrape(batch_id))  # True`,
  },
  getBatchScrapeErrors: {
    curl: `curl ${auth} ${base}/v2/batch/scrape/$BATCH_ID/errors`,
    js: `${jsClient()}
const { errors } = await firecrawl.getBatchScrapeErrors(batchId);
for (const e of errors) console.log(e.url, e.code, e.error);`,
    python: `${pyClient}
result = firecrawl.get_batch_scrape_errors(batch_id)
for e in result.errors:
    print(e.url, e.code, e.error)`,
  },
  mapUrls: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"url":"https://example.com","search":"docs","limit":100}' \\
  ${base}/v2/map`,
    js: `${jsClient()}
const { links } = await firecrawl.map('https://example.com', { search: 'docs', limit: 100 });
for (const link of links) console.log(link.url, link.title);`,
    python: `${pyClient}
result = firecrawl.map("https://example.com", search="docs", limit=100)
for link in result.links:
    print(link.url)`,
  },
  extractData: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"urls":["https://example.com/about"],"prompt":"The company and when it was founded","schema":{"type":"object","properties":{"company":{"type":"string"},"founded":{"type":"integer"}}},"showSources":true}' \\
  ${base}/v2/extract`,
    js: `${jsClient()}
// Starts the job and polls it until it ends.
const result = await firecrawl.extract({
  urls: ['https://example.com/about', 'https://example.com/blog/*'],
  prompt: 'The company and when it was founded',
  schema: { type: 'object', properties: { company: { type: 'string' }, founded: { type: 'integer' } } },
  showSources: true,
});
console.log(result.status, result.data, result.sources);`,
    python: `${pyClient}
result = firecrawl.extract(
    urls=["https://example.com/about", "https://example.com/blog/*"],
    prompt="The company and when it was founded",
    schema={"type": "object", "properties": {"company": {"type": "string"}, "founded": {"type": "integer"}}},
    show_sources=True,
)
print(result.status, result.data)`,
  },
  getExtractStatus: {
    curl: `curl ${auth} ${base}/v2/extract/<id>`,
    js: `${jsClient()}
const status = await firecrawl.getExtractStatus('<id>');
if (status.status === 'completed') console.log(status.data);`,
    python: `${pyClient}
status = firecrawl.get_extract_status("<id>")
print(status.status, status.data)`,
  },
  createMonitor: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"name":"Pricing","schedule":{"text":"daily at 9:00","timezone":"Europe/Paris"},"targets":[{"type":"scrape","urls":["https://example.com/pricing"]}],"webhook":{"url":"https://hooks.example.com/quire"}}' \\
  ${base}/v2/monitor`,
    js: `${jsClient()}
const monitor = await firecrawl.createMonitor({
  name: 'Pricing',
  schedule: { text: 'daily at 9:00', timezone: 'Europe/Paris' },
  targets: [{ type: 'scrape', urls: ['https://example.com/pricing'] }],
  webhook: { url: 'https://hooks.example.com/quire' },
});
console.log(monitor.id, monitor.nextRunAt);`,
    python: `${pyClient}
monitor = firecrawl.create_monitor(
    name="Pricing",
    schedule={"text": "daily at 9:00", "timezone": "Europe/Paris"},
    targets=[{"type": "scrape", "urls": ["https://example.com/pricing"]}],
)
print(monitor.id)`,
  },
  listMonitors: {
    curl: `curl ${auth} '${base}/v2/monitor?limit=20'`,
    js: `${jsClient()}
for (const m of await firecrawl.listMonitors({ limit: 20 })) console.log(m.id, m.name, m.status);`,
    python: `${pyClient}
for m in firecrawl.list_monitors(limit=20):
    print(m.id, m.name)`,
  },
  getMonitor: {
    curl: `curl ${auth} ${base}/v2/monitor/<id>`,
    js: `${jsClient()}
const monitor = await firecrawl.getMonitor('<id>');
console.log(monitor.nextRunAt, monitor.lastCheckSummary);`,
    python: `${pyClient}
print(firecrawl.get_monitor("<id>").next_run_at)`,
  },
  updateMonitor: {
    curl: `curl ${auth} -X PATCH -H 'Content-Type: application/json' -d '{"status":"paused"}' ${base}/v2/monitor/<id>`,
    js: `${jsClient()}
await firecrawl.updateMonitor('<id>', { status: 'paused' });`,
    python: `${pyClient}
firecrawl.update_monitor("<id>", status="paused")`,
  },
  deleteMonitor: {
    curl: `curl ${auth} -X DELETE ${base}/v2/monitor/<id>`,
    js: `${jsClient()}
await firecrawl.deleteMonitor('<id>');`,
    python: `${pyClient}
firecrawl.delete_monitor("<id>")`,
  },
  runMonitor: {
    curl: `curl ${auth} -X POST -H 'Content-Type: application/json' -d '{}' ${base}/v2/monitor/<id>/run`,
    js: `${jsClient()}
const check = await firecrawl.runMonitor('<id>');
console.log(check.id, check.status);`,
    python: `${pyClient}
check = firecrawl.run_monitor("<id>")
print(check.id)`,
  },
  listMonitorChecks: {
    curl: `curl ${auth} ${base}/v2/monitor/<id>/checks`,
    js: `${jsClient()}
for (const c of await firecrawl.listMonitorChecks('<id>')) console.log(c.id, c.status, c.summary);`,
    python: `${pyClient}
for c in firecrawl.list_monitor_checks("<id>"):
    print(c.id, c.status)`,
  },
  getMonitorCheck: {
    curl: `curl ${auth} '${base}/v2/monitor/<id>/checks/<checkId>?status=changed'`,
    js: `${jsClient()}
const check = await firecrawl.getMonitorCheck('<id>', '<checkId>', { status: 'changed' });
for (const page of check.pages) console.log(page.url, page.diff?.text);`,
    python: `${pyClient}
check = firecrawl.get_monitor_check("<id>", "<checkId>")
for page in check.pages:
    print(page.url, page.status)`,
  },
  createInteractSession: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"ttl":600,"activityTtl":300}' \\
  ${base}/v2/interact`,
    js: `${jsClient("import { chromium } from 'playwright-core';\n")}
const session = await firecrawl.browser({ ttl: 600, activityTtl: 300 });
console.log(session.liveViewUrl);
// Drive it over CDP with any CDP client.
const browser = await chromium.connectOverCDP(session.cdpUrl);`,
    python: `${pyClient}
session = firecrawl.browser(ttl=600, activity_ttl=300)
print(session.cdp_url, session.live_view_url)`,
  },
  listInteractSessions: {
    curl: `curl ${auth} '${base}/v2/interact?status=active'`,
    js: `${jsClient()}
const { sessions } = await firecrawl.listBrowsers({ status: 'active' });
for (const s of sessions ?? []) console.log(s.id, s.status);`,
    python: `${pyClient}
result = firecrawl.list_browsers(status="active")
for s in result.sessions:
    print(s.id, s.status)`,
  },
  getInteractSession: {
    curl: `curl ${auth} ${base}/v2/interact/$SESSION_ID`,
    js: `// The SDK has no call for one session; plain fetch:
const res = await fetch(\`${base}/v2/interact/\${sessionId}\`, {
  headers: { Authorization: \`Bearer \${process.env.QUIRE_API_KEY}\` },
});
const session = await res.json();
console.log(session.status, session.expiresAt, session.closeReason);`,
    python: `# The SDK has no call for one session; plain requests:
${pyHttp}
session = requests.get(f"${base}/v2/interact/{session_id}", headers=headers).json()
print(session["status"], session["expiresAt"], session.get("closeReason"))`,
  },
  deleteInteractSession: {
    curl: `curl -X DELETE ${auth} ${base}/v2/interact/$SESSION_ID`,
    js: `${jsClient()}
const ended = await firecrawl.deleteBrowser(sessionId);
console.log(ended.sessionDurationMs);`,
    python: `${pyClient}
ended = firecrawl.delete_browser(session_id)
print(ended)`,
  },
  executeInInteractSession: {
    curl: `curl ${auth} -H 'Content-Type: application/json' \\
  -d '{"code":"await page.goto(\\"https://example.com\\"); return await page.title()","language":"node"}' \\
  ${base}/v2/interact/$SESSION_ID/execute`,
    js: `${jsClient()}
const run = await firecrawl.browserExecute(sessionId, {
  code: 'await page.goto("https://example.com"); return await page.title()',
  language: 'node',
});
console.log(run.result, run.stdout);`,
    python: `${pyClient}
run = firecrawl.browser_execute(
    session_id,
    code='await page.goto("https://example.com"); return await page.title()',
    language="node",
)
print(run.result)`,
  },
  deleteInteractProfile: {
    curl: `curl -X DELETE ${auth} ${base}/v2/interact/profiles/my-profile`,
    js: `// The SDK has no call for profiles; plain fetch:
await fetch('${base}/v2/interact/profiles/my-profile', {
  method: 'DELETE',
  headers: { Authorization: \`Bearer \${process.env.QUIRE_API_KEY}\` },
});`,
    python: `# The SDK has no call for profiles; plain requests:
${pyHttp}
requests.delete("${base}/v2/interact/profiles/my-profile", headers=headers)`,
  },
  getCreditUsage: {
    curl: `curl ${auth} ${base}/v2/team/credit-usage`,
    js: `${jsClient()}
const usage = await firecrawl.getCreditUsage();
console.log(usage.remainingCredits, usage.billingPeriodStart);`,
    python: `${pyClient}
usage = firecrawl.get_credit_usage()
print(usage.remaining_credits)`,
  },
  getTokenUsage: {
    curl: `curl ${auth} ${base}/v2/team/token-usage`,
    js: `${jsClient()}
const usage = await firecrawl.getTokenUsage();
console.log(usage.remainingTokens, usage.billingPeriodEnd);`,
    python: `${pyClient}
usage = firecrawl.get_token_usage()
print(usage.remaining_tokens)`,
  },
  getCreditUsageHistorical: {
    curl: `curl ${auth} '${base}/v2/team/credit-usage/historical?byApiKey=true'`,
    js: `${jsClient()}
const { periods } = await firecrawl.getCreditUsageHistorical(true);
for (const p of periods) console.log(p.startDate, p.apiKey, p.creditsUsed);`,
    python: `${pyClient}
result = firecrawl.get_credit_usage_historical(by_api_key=True)
for p in result.periods:
    print(p.startDate, p.apiKey, p.creditsUsed)`,
  },
  getTokenUsageHistorical: {
    curl: `curl ${auth} ${base}/v2/team/token-usage/historical`,
    js: `${jsClient()}
const { periods } = await firecrawl.getTokenUsageHistorical();
for (const p of periods) console.log(p.startDate, p.tokensUsed);`,
    python: `${pyClient}
result = firecrawl.get_token_usage_historical()
for p in result.periods:
    print(p.startDate, p.tokensUsed)`,
  },
  getConcurrency: {
    curl: `curl ${auth} ${base}/v2/concurrency-check`,
    js: `${jsClient()}
const { concurrency, maxConcurrency } = await firecrawl.getConcurrency();
console.log(\`\${concurrency} of \${maxConcurrency} running\`);`,
    python: `${pyClient}
c = firecrawl.get_concurrency()
print(c.concurrency, c.max_concurrency)`,
  },
  getQueueStatus: {
    curl: `curl ${auth} ${base}/v2/team/queue-status`,
    js: `${jsClient()}
const status = await firecrawl.getQueueStatus();
console.log(status.activeJobsInQueue, status.waitingJobsInQueue, status.mostRecentSuccess);`,
    python: `${pyClient}
status = firecrawl.get_queue_status()
print(status.active_jobs_in_queue, status.waiting_jobs_in_queue)`,
  },
  health: {
    curl: `curl ${base}/health`,
    js: `// No key and no SDK call needed:
const res = await fetch('${base}/health');
console.log(res.status); // 200 once Quire is ready`,
    python: `import requests

print(requests.get("${base}/health").status_code)  # 200 once Quire is ready`,
  },
};

/**
 * Adds the samples to every operation of `paths`; an operation without samples is a mistake
 * (a new route), so it throws rather than leave a gap in the reference.
 */
export function addCodeSamples(paths: Record<string, unknown>): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, Record<string, unknown>>)) {
      const id = String(operation.operationId);
      const found = samples[id];
      if (!found) throw new Error(`no code samples for ${method.toUpperCase()} ${path} (${id})`);
      operation['x-codeSamples'] = [
        { lang: 'Shell', label: 'curl', source: found.curl },
        { lang: 'JavaScript', label: 'JS SDK', source: found.js },
        { lang: 'Python', label: 'Python SDK', source: found.python },
      ];
    }
  }
}
