import { useCallback, useEffect, useState } from 'preact/hooks';
import { callApi, errorText, readSessions, type Session } from './api.ts';

const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleTimeString() : '');

export function SessionsPanel({ apiKey }: { apiKey: string }) {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [filter, setFilter] = useState('');
  const [ttl, setTtl] = useState('600');
  const [watched, setWatched] = useState<Session | undefined>();
  const [message, setMessage] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(async () => {
    if (!apiKey) return;
    const answer = await callApi(apiKey, 'GET', `/v2/interact${filter ? `?status=${filter}` : ''}`);
    if (!answer.ok) return setProblem(`Listing sessions: HTTP ${answer.status}: ${errorText(answer)}`);
    setProblem(undefined);
    setSessions(readSessions(answer.json));
  }, [apiKey, filter]);

  useEffect(() => {
    refresh().catch((error: unknown) => setProblem(String(error)));
  }, [refresh]);

  /** One change, then the list again, so that what is shown is what the server holds. */
  const act = async (run: () => Promise<string>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      setMessage(await run());
      await refresh();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  const create = () =>
    act(async () => {
      const answer = await callApi(apiKey, 'POST', '/v2/interact', { ttl: Number(ttl) });
      if (!answer.ok) throw new Error(`Creating a session: HTTP ${answer.status}: ${errorText(answer)}`);
      const created = readSessions({ sessions: [answer.json] })[0];
      if (created) setWatched({ ...created, status: 'active' });
      return `Session ${created?.id ?? ''} started.`;
    });

  const end = (session: Session) =>
    act(async () => {
      const answer = await callApi(apiKey, 'DELETE', `/v2/interact/${encodeURIComponent(session.id)}`);
      if (!answer.ok) throw new Error(`Ending ${session.id}: HTTP ${answer.status}: ${errorText(answer)}`);
      if (watched?.id === session.id) setWatched(undefined);
      return `Session ${session.id} ended.`;
    });

  return (
    <section aria-labelledby="sessions-title" class="card">
      <h2 id="sessions-title">Interact sessions</h2>
      <div class="toolbar">
        <label>
          Show
          <select id="session-filter" value={filter} onChange={(e) => setFilter(e.currentTarget.value)}>
            <option value="">all</option>
            <option value="active">active</option>
            <option value="destroyed">destroyed</option>
          </select>
        </label>
        <button type="button" disabled={!apiKey || busy} onClick={() => act(async () => 'List refreshed.')}>
          Refresh
        </button>
        <label>
          Lifetime (s)
          <input
            id="session-ttl"
            type="number"
            min={30}
            max={3600}
            value={ttl}
            onInput={(e) => setTtl(e.currentTarget.value)}
          />
        </label>
        <button type="button" class="primary" id="create-session" disabled={!apiKey || busy} onClick={create}>
          New session
        </button>
      </div>
      <div role="status" aria-live="polite" id="sessions-status">
        {message}
      </div>
      {problem ? (
        <p role="alert" class="error" id="sessions-error">
          {problem}
        </p>
      ) : null}
      {sessions.length === 0 ? (
        <p class="muted">{apiKey ? 'No sessions.' : 'Paste an API key to see your sessions.'}</p>
      ) : (
        <table id="sessions">
          <caption class="visually-hidden">Your team's sessions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Last activity</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id} data-session={s.id}>
                <td>
                  <code>{s.id}</code>
                </td>
                <td class={`status-${s.status}`}>{s.status}</td>
                <td>{when(s.createdAt)}</td>
                <td>{when(s.lastActivity)}</td>
                <td>
                  {s.status === 'active' ? (
                    <>
                      <button type="button" disabled={!s.liveViewUrl} onClick={() => setWatched(s)}>
                        Watch <span class="visually-hidden">{s.id}</span>
                      </button>
                      <button type="button" disabled={busy} onClick={() => end(s)}>
                        End <span class="visually-hidden">{s.id}</span>
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {watched?.liveViewUrl ? (
        <figure class="live">
          <figcaption>
            Live view of <code>{watched.id}</code>{' '}
            <button type="button" onClick={() => setWatched(undefined)}>
              Close
            </button>
          </figcaption>
          <iframe id="live-view" title={`Live view of session ${watched.id}`} src={watched.liveViewUrl} />
        </figure>
      ) : null}
    </section>
  );
}
