import { render } from 'preact';
import { useState } from 'preact/hooks';
import { ParsePanel } from './parse-panel.tsx';
import { SessionsPanel } from './sessions-panel.tsx';

/** The key stays in this browser: it is sent only to this Quire, in the Authorization header. */
const storageKey = 'quire.apiKey';

function KeyPanel({ apiKey, onChange }: { apiKey: string; onChange: (key: string) => void }) {
  const [draft, setDraft] = useState(apiKey);
  return (
    <form
      class="card key"
      aria-labelledby="key-title"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(draft.trim());
      }}
    >
      <h2 id="key-title">API key</h2>
      <label>
        Key (kept in this browser's local storage only)
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
      </label>
      <button type="submit" class="primary" id="save-key">
        Use key
      </button>
      <button
        type="button"
        onClick={() => {
          setDraft('');
          onChange('');
        }}
      >
        Forget key
      </button>
      <span class="muted" id="key-state">
        {apiKey
          ? `Using a key ending …${apiKey.slice(-4)}`
          : 'No key yet: `npm start` prints one on first start.'}
      </span>
    </form>
  );
}

function App() {
  const [apiKey, setApiKey] = useState(() => localStorage.getItem(storageKey) ?? '');
  const change = (key: string) => {
    if (key) localStorage.setItem(storageKey, key);
    else localStorage.removeItem(storageKey);
    setApiKey(key);
  };
  return (
    <>
      <header>
        <h1>Quire playground</h1>
        <nav>
          <a href="/docs">API reference</a>
        </nav>
      </header>
      <main>
        <KeyPanel apiKey={apiKey} onChange={change} />
        <div class="columns">
          <ParsePanel apiKey={apiKey} />
          <SessionsPanel apiKey={apiKey} />
        </div>
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
