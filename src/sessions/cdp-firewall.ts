import fs from 'node:fs';
import path from 'node:path';
import type { CdpCommand } from './cdp-pipe.ts';
import type { NetPolicy } from './net-policy.ts';

export interface FirewallScope {
  policy: NetPolicy;
  /** Where the session's downloads go, whatever a client asks. */
  downloadsDir: string;
  /** The only folder files may be handed to the page from (file inputs, drops). */
  uploadsDir: string;
}

export type Verdict =
  | { kind: 'forward'; command: CdpCommand }
  | { kind: 'refuse'; reply: string; method: string; reason: string }
  | { kind: 'invalid'; reason: string };

type CdpRequest = CdpCommand;

/**
 * Methods refused outright: each would reach past the session's browser (its host's files,
 * other network paths, or the process itself).
 */
const refusedMethods: Record<string, string> = {
  'Browser.close': 'it would end the browser under other clients; DELETE the session instead',
  'Browser.crash': 'it would crash the browser',
  'Browser.crashGpuProcess': 'it would crash the browser',
  'Browser.executeBrowserCommand': 'browser commands are not available in sessions',
  'Target.exposeDevToolsProtocol': 'it would give page scripts an unfiltered CDP connection',
  'Target.sendMessageToTarget':
    'the message inside it would pass unchecked; attach with flatten: true and send with a sessionId instead',
  'Target.setRemoteLocations': 'it would make the browser connect to other hosts',
};
const refusedDomains: Record<string, string> = {
  Extensions: 'extensions are loaded from files on the host',
  PWA: 'installing web apps reads bundles from the host',
  Tethering: 'it opens listening ports on the host',
};

/** Methods whose `url` parameter makes the browser load something. */
const urlMethods = new Set([
  'Page.navigate',
  'Target.createTarget',
  'Network.loadNetworkResource',
  'Fetch.continueRequest',
  'Network.continueInterceptedRequest',
]);

/**
 * Look at one message a client sends to the browser: forward it (possibly rewritten), or
 * refuse it with a CDP error reply naming the reason. Everything the browser fetches also goes
 * through the egress proxy; this stops what never reaches the network (file:, chrome:, host
 * files handed to the page) and says why early for the rest.
 */
export function inspectClientMessage(text: string, scope: FirewallScope): Verdict {
  let message: CdpRequest;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: 'a CDP message must be JSON' };
  }
  if (
    typeof message !== 'object' ||
    message === null ||
    typeof message.id !== 'number' ||
    typeof message.method !== 'string' ||
    (message.params !== undefined && (typeof message.params !== 'object' || message.params === null)) ||
    (message.sessionId !== undefined && typeof message.sessionId !== 'string')
  ) {
    return {
      kind: 'invalid',
      reason: 'a CDP message needs a numeric id, a method, object params and a string sessionId if any',
    };
  }
  const reason = refusal(message, scope);
  if (reason === undefined) return { kind: 'forward', command: message };
  if (typeof reason === 'object') return { kind: 'forward', command: reason };
  const reply = {
    id: message.id,
    error: { code: -32000, message: `Quire refused ${message.method}: ${reason}.` },
    ...(message.sessionId ? { sessionId: message.sessionId } : {}),
  };
  return { kind: 'refuse', reply: JSON.stringify(reply), method: message.method, reason };
}

/** Why the message is refused, a rewritten message to send instead, or undefined to pass. */
function refusal(message: CdpRequest, scope: FirewallScope): string | CdpRequest | undefined {
  const { method } = message;
  const params = message.params ?? {};
  const outright = refusedMethods[method] ?? refusedDomains[method.split('.')[0]!];
  if (outright) return outright;
  if (urlMethods.has(method) && typeof params.url === 'string') {
    return scope.policy.refuseUrl(params.url);
  }
  switch (method) {
    case 'Target.createBrowserContext':
      if (params.proxyServer !== undefined || params.proxyBypassList !== undefined) {
        return 'a context with its own proxy would bypass the session’s egress checks';
      }
      if (params.originsWithUniversalNetworkAccess !== undefined) {
        return 'universal network access is not granted in sessions';
      }
      return undefined;
    case 'Browser.setDownloadBehavior':
    case 'Page.setDownloadBehavior':
      // Clients (Playwright among them) name a folder on their own machine; downloads stay in
      // the session's folder instead. The browser's `default` is that folder too: the headless
      // shell's own default is to refuse every download.
      if (params.behavior === 'default') {
        return { ...message, params: { ...params, behavior: 'allow', downloadPath: scope.downloadsDir } };
      }
      if (params.downloadPath === undefined) return undefined;
      return { ...message, params: { ...params, downloadPath: scope.downloadsDir } };
    case 'DOM.setFileInputFiles':
      return outsideUploads(params.files, scope.uploadsDir);
    case 'Input.dispatchDragEvent': {
      const data = params.data as { files?: unknown } | undefined;
      return data?.files === undefined ? undefined : outsideUploads(data.files, scope.uploadsDir);
    }
  }
  return undefined;
}

function outsideUploads(files: unknown, uploadsDir: string): string | undefined {
  if (!Array.isArray(files)) return undefined;
  const root = fs.realpathSync(uploadsDir);
  for (const file of files) {
    if (typeof file !== 'string') return 'file paths must be strings';
    let real: string;
    try {
      real = fs.realpathSync(path.resolve(root, file));
    } catch {
      return `${file} does not exist in the session's upload folder`;
    }
    if (!real.startsWith(root + path.sep)) {
      return `${file} is outside the session's upload folder; only files in it can be given to the page`;
    }
  }
  return undefined;
}
