import { createHash } from 'node:crypto';

/**
 * The live view page: the followed tab's frames on an <img>, tabs listed above. Interactive
 * viewers' mouse, wheel, keys and paste are sent as CSS-pixel coordinates of the page; the
 * server decides whether they are applied. The embedding page is told `quire-live` messages
 * (connected, disconnected, ended) through postMessage, and the view reconnects by itself.
 */
const script = `
const socketUrl = location.href.replace(/^http/, 'ws').replace(/\\/live(\\?|$)/, '/live/ws$1');
const screen = document.getElementById('screen');
const status = document.getElementById('status');
const tabs = document.getElementById('tabs');
let socket, metadata, interactive = false, ended = false, frames = 0, retry = 500;
const tell = (state, extra) => { try { parent.postMessage({ source: 'quire-live', state, ...extra }, '*'); } catch {} };
function connect() {
  socket = new WebSocket(socketUrl);
  socket.onopen = () => { retry = 500; status.textContent = 'connected'; tell('connected'); };
  socket.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === 'frame') {
      metadata = m.metadata;
      screen.src = 'data:image/jpeg;base64,' + m.data;
      document.body.dataset.frames = String(++frames);
    } else if (m.type === 'mode') {
      interactive = m.interactive;
      document.body.dataset.mode = interactive ? 'interactive' : 'read-only';
      status.textContent = interactive ? 'connected (interactive)' : 'connected (read-only)';
    } else if (m.type === 'tabs') {
      tabs.replaceChildren(...m.tabs.map((t) => {
        const b = document.createElement('button');
        b.textContent = t.title || t.url || 'about:blank';
        b.title = t.url;
        b.disabled = !interactive;
        if (t.followed) b.className = 'on';
        b.onclick = () => send({ type: 'tab', targetId: t.id });
        return b;
      }));
    } else if (m.type === 'crashed') {
      status.textContent = 'the page crashed';
    } else if (m.type === 'ended') {
      ended = true;
      status.textContent = 'session ended: ' + m.reason;
      document.body.dataset.ended = 'true';
      tell('ended', { reason: m.reason });
    }
  };
  socket.onclose = (e) => {
    tell('disconnected');
    if (ended || e.code === 4404 || e.code === 4410) { ended = true; status.textContent = 'session ended'; return; }
    status.textContent = 'reconnecting…';
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}
function send(m) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(m)); }
function point(e) {
  const r = screen.getBoundingClientRect();
  const w = metadata ? metadata.deviceWidth : r.width, h = metadata ? metadata.deviceHeight : r.height;
  return { x: (e.clientX - r.left) * w / r.width, y: (e.clientY - r.top) * h / r.height };
}
const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
const buttons = ['left', 'middle', 'right'];
for (const [dom, event] of [['mousedown', 'mousePressed'], ['mouseup', 'mouseReleased'], ['mousemove', 'mouseMoved']]) {
  screen.addEventListener(dom, (e) => {
    if (!interactive) return;
    e.preventDefault();
    send({ type: 'mouse', event, ...point(e), button: event === 'mouseMoved' ? 'none' : buttons[e.button] || 'left',
      clickCount: event === 'mouseMoved' ? 0 : e.detail || 1, modifiers: mods(e) });
  });
}
screen.addEventListener('wheel', (e) => {
  if (!interactive) return;
  e.preventDefault();
  send({ type: 'wheel', ...point(e), deltaX: e.deltaX, deltaY: e.deltaY, modifiers: mods(e) });
}, { passive: false });
screen.addEventListener('contextmenu', (e) => e.preventDefault());
for (const [dom, event] of [['keydown', 'down'], ['keyup', 'up']]) {
  window.addEventListener(dom, (e) => {
    if (!interactive || (e.key === 'v' && (e.ctrlKey || e.metaKey))) return;
    e.preventDefault();
    const text = e.key === 'Enter' ? '\\r' : e.key.length === 1 ? e.key : undefined;
    send({ type: 'key', event, key: e.key, code: e.code, text, keyCode: e.keyCode, modifiers: mods(e) });
  });
}
window.addEventListener('paste', (e) => {
  if (!interactive) return;
  e.preventDefault();
  send({ type: 'paste', text: e.clipboardData.getData('text') });
});
connect();
`;

const style = `
html, body { margin: 0; height: 100%; background: #1e1e1e; color: #ddd; font: 13px system-ui, sans-serif; }
body { display: flex; flex-direction: column; }
header { display: flex; gap: 8px; align-items: center; padding: 4px 8px; }
#tabs { display: flex; gap: 4px; overflow: hidden; flex: 1; }
#tabs button { max-width: 220px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  background: #333; color: #ccc; border: 0; padding: 3px 8px; border-radius: 4px; }
#tabs button.on { background: #555; color: #fff; }
main { flex: 1; display: flex; align-items: center; justify-content: center; min-height: 0; }
#screen { max-width: 100%; max-height: 100%; object-fit: contain; user-select: none; }
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export const livePageHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quire live view</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${style}</style></head>
<body data-frames="0"><header><div id="tabs"></div><span id="status">connecting…</span></header>
<main><img id="screen" alt="" draggable="false"></main>
<script>${script}</script></body></html>
`;

/** Inline code is allowed by hash only; frames are data: images; the socket is same-origin. */
export const livePageCsp = [
  "default-src 'none'",
  `script-src ${hash(script)}`,
  `style-src ${hash(style)}`,
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
