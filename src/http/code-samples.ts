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
