import { useState } from 'preact/hooks';
import { type Answer, callApi, errorText, type ParsedDocument, readDocument } from './api.ts';
import { renderMarkdown } from './markdown.ts';
import { type Tab, Tabs } from './tabs.tsx';

const formatNames = ['markdown', 'html', 'rawHtml', 'links', 'images', 'summary', 'json'] as const;
type FormatName = (typeof formatNames)[number];

const selectors = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

interface Settings {
  formats: Set<FormatName>;
  schema: string;
  prompt: string;
  pdfMode: string;
  maxPages: string;
  onlyMainContent: boolean;
  includeTags: string;
  excludeTags: string;
  redact: string;
  timeout: string;
}

/** The `options` field of the upload, as the API documents it; throws on a schema that is not JSON. */
function buildOptions(s: Settings): Record<string, unknown> {
  const formats = [...s.formats].map((name) => {
    if (name !== 'json') return name;
    const json: Record<string, unknown> = { type: 'json' };
    if (s.schema.trim()) json.schema = JSON.parse(s.schema);
    if (s.prompt.trim()) json.prompt = s.prompt;
    return json;
  });
  const pdf: Record<string, unknown> = { type: 'pdf', mode: s.pdfMode };
  if (s.maxPages) pdf.maxPages = Number(s.maxPages);
  const options: Record<string, unknown> = {
    formats,
    onlyMainContent: s.onlyMainContent,
    parsers: [pdf, 'image'],
  };
  if (selectors(s.includeTags).length) options.includeTags = selectors(s.includeTags);
  if (selectors(s.excludeTags).length) options.excludeTags = selectors(s.excludeTags);
  if (s.redact) options.redactPII = { mode: s.redact };
  if (s.timeout) options.timeout = Number(s.timeout);
  return options;
}

/** A labelled text or number input bound to one setting. */
function Field(props: {
  label: string;
  id: string;
  value: string;
  onValue: (value: string) => void;
  numeric?: boolean;
  min?: number;
  max?: number;
  step?: number;
  placeholder?: string;
}) {
  const { label, onValue, numeric, ...input } = props;
  const onInput = (e: { currentTarget: HTMLInputElement }) => onValue(e.currentTarget.value);
  return (
    <label htmlFor={input.id}>
      {label}
      {numeric ? (
        <input type="number" {...input} onInput={onInput} />
      ) : (
        <input type="text" {...input} onInput={onInput} />
      )}
    </label>
  );
}

const missing = (what: string) => <p class="muted">No {what} in this answer (was it requested?).</p>;

function List({ items, what }: { items: string[] | undefined; what: string }) {
  if (!items) return missing(what);
  if (items.length === 0) return <p class="muted">The document has no {what}.</p>;
  return (
    <ol class="list">
      {items.map((item) => (
        <li key={item}>
          {/* Only inline images show: the page loads nothing from other hosts. */}
          {what === 'images' && item.startsWith('data:image/') ? <img src={item} alt="" /> : null}
          <code>{item.length > 300 ? `${item.slice(0, 300)}…` : item}</code>
        </li>
      ))}
    </ol>
  );
}

function resultTabs(doc: ParsedDocument, answer: Answer): Tab[] {
  const source = (text: string | undefined, what: string) =>
    text === undefined ? missing(what) : <pre>{text}</pre>;
  return [
    {
      id: 'rendered',
      label: 'Rendered',
      content: () =>
        doc.markdown === undefined ? (
          missing('Markdown')
        ) : (
          // renderMarkdown sanitizes (DOMPurify).
          <div class="rendered" dangerouslySetInnerHTML={{ __html: renderMarkdown(doc.markdown) }} />
        ),
    },
    { id: 'markdown', label: 'Markdown', content: () => source(doc.markdown, 'Markdown') },
    { id: 'html', label: 'HTML', content: () => source(doc.html, 'HTML') },
    { id: 'rawHtml', label: 'Raw HTML', content: () => source(doc.rawHtml, 'raw HTML') },
    { id: 'links', label: 'Links', content: () => <List items={doc.links} what="links" /> },
    { id: 'images', label: 'Images', content: () => <List items={doc.images} what="images" /> },
    { id: 'summary', label: 'Summary', content: () => source(doc.summary, 'summary') },
    {
      id: 'json',
      label: 'JSON',
      content: () => source(doc.json === undefined ? undefined : JSON.stringify(doc.json, null, 2), 'json'),
    },
    {
      id: 'metadata',
      label: 'Metadata',
      content: () => (
        <dl class="metadata">
          {Object.entries(doc.metadata).map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      ),
    },
    { id: 'response', label: 'Response', content: () => <pre>{answer.text}</pre> },
  ];
}

export function ParsePanel({ apiKey }: { apiKey: string }) {
  const [file, setFile] = useState<File | undefined>();
  const [dragging, setDragging] = useState(false);
  const [settings, setSettings] = useState<Settings>({
    formats: new Set<FormatName>(['markdown', 'html', 'links', 'images']),
    schema: '',
    prompt: '',
    pdfMode: 'auto',
    maxPages: '',
    onlyMainContent: true,
    includeTags: '',
    excludeTags: '',
    redact: '',
    timeout: '',
  });
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const set = (patch: Partial<Settings>) => setSettings({ ...settings, ...patch });
  const toggle = (name: FormatName, on: boolean) => {
    const formats = new Set(settings.formats);
    if (on) formats.add(name);
    else formats.delete(name);
    set({ formats });
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setAnswer(undefined);
    setProblem(undefined);
    if (!apiKey) return setProblem('Paste an API key first.');
    if (!file) return setProblem('Choose or drop a file first.');
    let options: Record<string, unknown>;
    try {
      options = buildOptions(settings);
    } catch {
      return setProblem('The JSON schema is not valid JSON.');
    }
    const form = new FormData();
    form.append('file', file, file.name);
    form.append('options', JSON.stringify(options));
    setBusy(true);
    try {
      setAnswer(await callApi(apiKey, 'POST', '/v2/parse', form));
    } catch (error) {
      setProblem(`The request failed: ${String(error)}`);
    } finally {
      setBusy(false);
    }
  };

  const doc = answer && readDocument(answer.json);
  return (
    <section aria-labelledby="parse-title" class="card">
      <h2 id="parse-title">Parse a document</h2>
      <form onSubmit={submit}>
        <label
          class={dragging ? 'drop dragging' : 'drop'}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            const dropped = e.dataTransfer?.files[0];
            if (dropped) setFile(dropped);
          }}
        >
          <span>Document: drop a file here, or choose one</span>
          <input id="file" type="file" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
          <span class="muted" id="file-name">
            {file ? `${file.name} (${file.size.toLocaleString()} bytes)` : 'No file chosen'}
          </span>
        </label>

        <fieldset>
          <legend>Formats</legend>
          {formatNames.map((name) => (
            <label key={name} class="check">
              <input
                type="checkbox"
                name="format"
                value={name}
                checked={settings.formats.has(name)}
                onChange={(e) => toggle(name, e.currentTarget.checked)}
              />
              {name}
            </label>
          ))}
          {settings.formats.has('json') ? (
            <div class="grid">
              <label>
                JSON schema
                <textarea
                  id="json-schema"
                  rows={5}
                  value={settings.schema}
                  placeholder='{"type":"object","properties":{"title":{"type":"string"}}}'
                  onInput={(e) => set({ schema: e.currentTarget.value })}
                />
              </label>
              <label>
                JSON prompt (optional)
                <textarea
                  rows={5}
                  value={settings.prompt}
                  onInput={(e) => set({ prompt: e.currentTarget.value })}
                />
              </label>
            </div>
          ) : null}
        </fieldset>

        <fieldset class="grid">
          <legend>Options</legend>
          <label>
            PDF mode
            <select
              id="pdf-mode"
              value={settings.pdfMode}
              onChange={(e) => set({ pdfMode: e.currentTarget.value })}
            >
              <option value="fast">fast: text layer only</option>
              <option value="auto">auto: OCR pages without text</option>
              <option value="ocr">ocr: OCR every page</option>
            </select>
          </label>
          <Field
            label="Max pages (PDF)"
            id="max-pages"
            numeric
            min={1}
            max={10000}
            value={settings.maxPages}
            onValue={(maxPages) => set({ maxPages })}
          />
          <Field
            label="Timeout (ms)"
            id="timeout"
            numeric
            min={1000}
            max={300000}
            step={1000}
            placeholder="30000"
            value={settings.timeout}
            onValue={(timeout) => set({ timeout })}
          />
          <label>
            Redact personal information
            <select
              id="redact"
              value={settings.redact}
              onChange={(e) => set({ redact: e.currentTarget.value })}
            >
              <option value="">off</option>
              <option value="fast">fast</option>
              <option value="accurate">accurate</option>
              <option value="aggressive">aggressive</option>
            </select>
          </label>
          <Field
            label="Include tags (CSS selectors, comma-separated)"
            id="include-tags"
            value={settings.includeTags}
            onValue={(includeTags) => set({ includeTags })}
          />
          <Field
            label="Exclude tags (CSS selectors, comma-separated)"
            id="exclude-tags"
            value={settings.excludeTags}
            onValue={(excludeTags) => set({ excludeTags })}
          />
          <label class="check">
            <input
              id="only-main-content"
              type="checkbox"
              checked={settings.onlyMainContent}
              onChange={(e) => set({ onlyMainContent: e.currentTarget.checked })}
            />
            Only main content (web pages)
          </label>
        </fieldset>

        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Parsing…' : 'Parse'}
        </button>
      </form>

      <div role="status" aria-live="polite" id="parse-status">
        {busy ? 'Parsing…' : answer ? `HTTP ${answer.status} in ${answer.ms} ms` : ''}
      </div>
      {problem ? (
        <p role="alert" class="error" id="parse-error">
          {problem}
        </p>
      ) : null}
      {answer && !doc ? (
        <div role="alert" class="error" id="parse-error">
          <p>
            <strong>HTTP {answer.status}</strong>: {errorText(answer)}
          </p>
          <pre>{answer.text}</pre>
        </div>
      ) : null}
      {doc?.warning ? (
        <p class="warning" id="parse-warning">
          <strong>Warning:</strong> {doc.warning}
        </p>
      ) : null}
      {doc && answer ? <Tabs label="Parse result" tabs={resultTabs(doc, answer)} /> : null}
    </section>
  );
}
