// What one session may use, enforced on a real browser: its memory, its folder's disk (and that a
// profile over it is not saved), its CPU priority, and that execute's code cannot reach any
// browser's debugging endpoint past the relay. What a saved profile may take is in
// test/unit/session-profiles.test.ts, the free disk a create needs in test/unit/session-admission.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { describe, it } from 'node:test';
import { firstPassOnly } from '../helpers/mode.ts';
import { type RunningServer, useServer } from '../helpers/server.ts';
import {
  api,
  attachToPage,
  createSession,
  openCdp,
  type RawCdp,
  recordedPid,
  useLoopbackSite,
  waitFor,
} from '../helpers/sessions.ts';

const MiB = 1024 * 1024;
const memoryCapMb = 512;
const diskCapMb = 64;

/**
 * Pages of this test: a blank page (titled with `?title=`, so that another process can tell the
 * tab apart), and a download of `?mb=` megabytes, streamed as fast as the browser takes it.
 */
function useLimitsSite(): () => string {
  const chunk = Buffer.alloc(MiB, 7);
  const site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site.invalid');
    if (url.pathname === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>${url.searchParams.get('title') ?? 'page'}</title><p>page</p>`);
      return;
    }
    if (url.pathname === '/big') {
      let left = Number(url.searchParams.get('mb'));
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="big.bin"',
        'content-length': String(left * MiB),
      });
      const more = () => {
        while (left > 0 && !res.destroyed) {
          left--;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
      return;
    }
    res.writeHead(404).end();
  });
  return useLoopbackSite(site);
}

/** The session as GET shows it once it is destroyed (waiting is for an event, not a time). */
function destroyed(server: RunningServer, id: string): Promise<Record<string, any>> {
  return waitFor(`session ${id} to be destroyed`, async () => {
    const one = await api(server, 'GET', `/v2/interact/${id}`);
    return one.body.status === 'destroyed' ? one.body : undefined;
  });
}

/** Navigate the attached page and wait for its load event. */
async function navigate(cdp: RawCdp, sessionId: string, url: string): Promise<void> {
  await cdp.send('Page.enable', {}, sessionId);
  const loaded = cdp.event('Page.loadEventFired', (e) => e.sessionId === sessionId);
  await cdp.send('Page.navigate', { url }, sessionId);
  await loaded;
}

/** The fields of a /proc stat file after the command name (state is [0], pgrp [2], nice [16]). */
function statFields(file: string): string[] {
  const stat = fs.readFileSync(file, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * The live processes of a process group: the niceness of each of their threads (niceness is per
 * thread on Linux) and their autogroup's, where the kernel has autogroups.
 */
function groupProcesses(pgid: number): { pid: number; threadNices: number[]; autogroupNice?: number }[] {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(`/proc/${entry}/stat`);
      if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
      const threadNices = fs
        .readdirSync(`/proc/${entry}/task`)
        .map((tid) => Number(statFields(`/proc/${entry}/task/${tid}/stat`)[16]));
      let autogroupNice: number | undefined;
      try {
        autogroupNice = Number(/nice (-?\d+)/.exec(fs.readFileSync(`/proc/${entry}/autogroup`, 'utf8'))?.[1]);
      } catch {
        // No autogroup scheduling in this kernel.
      }
      found.push({ pid: Number(entry), threadNices, autogroupNice });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Every TCP port listening on this host, with an address to reach it at from here. */
function listeningPorts(): { host: string; port: number; inode: string }[] {
  const found = [];
  for (const [file, any, loopback] of [
    ['/proc/net/tcp', '00000000', '127.0.0.1'],
    ['/proc/net/tcp6', '00000000000000000000000000000000', '[::1]'],
  ] as const) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] !== '0A') continue; // LISTEN
      const [addr, portHex] = cols[1]!.split(':') as [string, string];
      // Loopback and wildcard listeners; others are on addresses execute reaches the same way.
      const host = addr === any || addr.endsWith('0100007F') || addr.endsWith('01000000') ? loopback : '';
      if (host) found.push({ host, port: Number.parseInt(portHex, 16), inode: cols[9]! });
    }
  }
  return found;
}

/** The listening socket inodes some process of the group holds. */
function groupListeningSockets(pgid: number): string[] {
  const listening = new Set(listeningPorts().map((p) => p.inode));
  const held: string[] = [];
  for (const { pid } of groupProcesses(pgid)) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode && listening.has(inode)) held.push(inode);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return held;
}

/**
 * A session's browser is watched, niced and piped by the process that holds it, the same code in
 * both modes: the cluster pass adds nothing to these. It keeps the cases whose outcome is in the
 * shared store (the log line of its limits, the profile left unsaved).
 */
const heldByOneProcess = firstPassOnly(
  "a session's caps, priority and pipe are the holding process's, the same in both modes",
);

describe('interact sessions: what one session may use', () => {
  const server = useServer({
    // The limits' mode is logged at info.
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_SESSIONS_ALLOWED_HOSTS: '127.0.0.1',
    QUIRE_SESSIONS_EXECUTE: 'true',
    QUIRE_SESSION_MEMORY_MB: String(memoryCapMb),
    QUIRE_SESSION_DISK_MB: String(diskCapMb),
    QUIRE_WORKERS: '1',
  });
  const site = useLimitsSite();

  it('says in its log how session limits are enforced', async () => {
    const [line] = await server().waitForOutput(/\{[^\n]*"msg":"session limits"[^\n]*\}/);
    const logged = JSON.parse(line);
    assert.equal(typeof logged.enforcedBy, 'string');
    assert.equal(logged.memoryMb, memoryCapMb);
    assert.equal(logged.diskMb, diskCapMb);
  });

  it(
    'a page that allocates past QUIRE_SESSION_MEMORY_MB ends its session, with the reason',
    heldByOneProcess,
    async () => {
      const created = await createSession(server());
      const pid = await recordedPid(server(), created.id);
      const cdp = await openCdp(created.cdpUrl);
      try {
        const { sessionId } = await attachToPage(cdp);
        // 16 MB more every 10 ms, touched so that it is resident, and kept.
        await cdp.send(
          'Runtime.evaluate',
          {
            expression:
              'globalThis.kept = []; setInterval(() => kept.push(new Uint8Array(16 * 2 ** 20).fill(1)), 10); 1',
          },
          sessionId,
        );
        const record = await destroyed(server(), created.id);
        const used = /^its browser used (\d+) MB of memory, over the session cap of 512 MB$/.exec(
          record.closeReason,
        );
        assert.ok(used, record.closeReason);
        assert.ok(Number(used[1]) > memoryCapMb, record.closeReason);
        assert.deepEqual(groupProcesses(pid), [], 'the browser’s processes are gone');
      } finally {
        await cdp.close();
        await api(server(), 'DELETE', `/v2/interact/${created.id}`);
      }
    },
  );

  it(
    'a download past QUIRE_SESSION_DISK_MB ends its session, with the reason',
    heldByOneProcess,
    async () => {
      const created = await createSession(server());
      const cdp = await openCdp(created.cdpUrl);
      try {
        const { sessionId } = await attachToPage(cdp);
        // The download goes on until the session ends and its browser with it.
        await cdp.send('Page.navigate', { url: `${site()}/big?mb=1024` }, sessionId).catch(() => {});
        const record = await destroyed(server(), created.id);
        const took =
          /^its folder \(profile, downloads, uploads\) took (\d+) MB of disk, over the session cap of 64 MB$/.exec(
            record.closeReason,
          );
        assert.ok(took, record.closeReason);
        assert.ok(Number(took[1]) > diskCapMb, record.closeReason);
      } finally {
        await cdp.close();
        await api(server(), 'DELETE', `/v2/interact/${created.id}`);
      }
    },
  );

  it('IndexedDB written past the disk cap ends the session, and its profile is not saved', async () => {
    const profile = { name: `heavy-${randomUUID()}`, saveChanges: true };
    const created = await createSession(server(), { profile });
    const cdp = await openCdp(created.cdpUrl);
    try {
      const { sessionId } = await attachToPage(cdp);
      await navigate(cdp, sessionId, `${site()}/page`);
      // Records of 4 MB of random bytes (so no layer compresses them), one after another.
      await cdp.send(
        'Runtime.evaluate',
        {
          expression: `localStorage.setItem('mark', 'written');
            const open = indexedDB.open('fill', 1);
            open.onupgradeneeded = () => open.result.createObjectStore('blocks');
            open.onsuccess = () => {
              const db = open.result;
              let n = 0;
              const next = () => {
                const block = new Uint8Array(4 * 2 ** 20);
                for (let i = 0; i < block.length; i += 65536) crypto.getRandomValues(block.subarray(i, i + 65536));
                const tx = db.transaction('blocks', 'readwrite');
                tx.objectStore('blocks').put(block, n++);
                tx.oncomplete = next;
              };
              next();
            };
            1`,
        },
        sessionId,
      );
      const record = await destroyed(server(), created.id);
      assert.match(
        record.closeReason,
        new RegExp(
          `^its folder \\(profile, downloads, uploads\\) took \\d+ MB of disk, over the session cap of 64 MB; its profile "${profile.name}" was not saved: the session went over its disk cap$`,
        ),
      );
    } finally {
      await cdp.close();
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
    // The next session of that profile starts without what the last one wrote.
    const next = await createSession(server(), { profile: { ...profile, saveChanges: false } });
    const again = await openCdp(next.cdpUrl);
    try {
      const { sessionId } = await attachToPage(again);
      await navigate(again, sessionId, `${site()}/page`);
      const { result } = await again.send(
        'Runtime.evaluate',
        { expression: "localStorage.getItem('mark')", returnByValue: true },
        sessionId,
      );
      assert.equal(result.value, null);
    } finally {
      await again.close();
      await api(server(), 'DELETE', `/v2/interact/${next.id}`);
    }
  });

  it(
    'every thread of a session’s browser runs below conversions (nice 10, its autogroup too)',
    heldByOneProcess,
    async () => {
      const created = await createSession(server());
      try {
        const pid = await recordedPid(server(), created.id);
        // Chromium raises a few threads (display, IO) when it can, as root here: the watchdog
        // lowers them again, so this waits for the watchdog's pass rather than a time.
        const processes = await waitFor('every thread at nice 10 or lower', async () => {
          const found = groupProcesses(pid);
          return found.every((p) => p.threadNices.every((nice) => nice >= 10)) ? found : undefined;
        });
        assert.ok(processes.length > 1, 'the browser has helper processes');
        for (const p of processes) {
          if (p.autogroupNice !== undefined) assert.equal(p.autogroupNice, 10, `autogroup of ${p.pid}`);
        }
        // Quire itself, and with it the conversions, stay where they were.
        assert.equal(os.getPriority(server().process.pid!), 0);
      } finally {
        await api(server(), 'DELETE', `/v2/interact/${created.id}`);
      }
    },
  );

  it(
    'execute’s code cannot reach another session’s browser past the relay: browsers listen on no port',
    heldByOneProcess,
    async () => {
      const target = await createSession(server());
      const caller = await createSession(server());
      const cdp = await openCdp(target.cdpUrl);
      try {
        const title = `target-${randomUUID()}`;
        const { sessionId } = await attachToPage(cdp);
        await navigate(cdp, sessionId, `${site()}/page?title=${title}`);
        const pid = await recordedPid(server(), target.id);
        // Every TCP port listening on this host, the browsers' own included if they had any, is
        // asked for its DevTools target list from inside execute: none may list the target's tab.
        const ports = listeningPorts().map(({ host, port }) => `http://${host}:${port}`);
        const ran = await api(server(), 'POST', `/v2/interact/${caller.id}/execute`, {
          timeout: 120,
          code: `const reached = [];
          await Promise.all(${JSON.stringify(ports)}.map(async (base) => {
            try {
              const res = await fetch(base + '/json/list', { signal: AbortSignal.timeout(5000) });
              if ((await res.text()).includes(${JSON.stringify(title)})) reached.push(base);
            } catch {}
          }));
          return { asked: ${ports.length}, reached };`,
        });
        assert.deepEqual([ran.status, ran.body.exitCode], [200, 0], ran.body.stderr);
        assert.deepEqual(JSON.parse(ran.body.result), { asked: ports.length, reached: [] });
        // Nor is there anything to reach: no process of the browser listens on TCP at all.
        assert.deepEqual(groupListeningSockets(pid), []);
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        assert.ok(!cmdline.some((arg) => arg.startsWith('--remote-debugging-port')), cmdline.join(' '));
      } finally {
        await cdp.close();
        await api(server(), 'DELETE', `/v2/interact/${caller.id}`);
        await api(server(), 'DELETE', `/v2/interact/${target.id}`);
      }
    },
  );
  it(
    'over the browser’s one pipe, each relayed client has a session of its own: another client’s is out of reach',
    heldByOneProcess,
    async () => {
      const created = await createSession(server());
      const first = await openCdp(created.cdpUrl);
      const second = await openCdp(created.cdpUrl);
      try {
        const { sessionId } = await attachToPage(first);
        const notFound = { code: -32001, message: 'Session with given id not found.' };
        await assert.rejects(second.send('Runtime.evaluate', { expression: '1' }, sessionId), notFound);
        await assert.rejects(second.send('Target.detachFromTarget', { sessionId }), notFound);
        // Each sees the page and attaches to it on its own; the first one's attachment still works.
        const own = await attachToPage(second);
        assert.notEqual(own.sessionId, sessionId);
        const { result } = await first.send(
          'Runtime.evaluate',
          { expression: '6 * 7', returnByValue: true },
          sessionId,
        );
        assert.equal(result.value, 42);
        // A client leaving detaches only what it attached.
        await second.close();
        const again = await first.send(
          'Runtime.evaluate',
          { expression: '1 + 1', returnByValue: true },
          sessionId,
        );
        assert.equal(again.result.value, 2);
      } finally {
        await first.close();
        await second.close();
        await api(server(), 'DELETE', `/v2/interact/${created.id}`);
      }
    },
  );
});
