import { enableCompileCache } from './compile-cache.ts';
import { loadConfig } from './config.ts';
import { disableCoreFiles } from './core-files.ts';

const config = loadConfig();
enableCompileCache(config.QUIRE_DATA_DIR);
// Before any worker or browser starts, so that every one inherits it.
const coreFilesOn = disableCoreFiles();
// The worker role never loads the API's modules (store, sessions, routes): it starts in half the time.
const app =
  config.QUIRE_ROLE === 'worker'
    ? await (await import('./worker-app.ts')).createWorkerApp(config)
    : await (await import('./app.ts')).createApp(config);
if (coreFilesOn) app.server.log.warn({ reason: coreFilesOn }, 'core files could not be turned off');
const address = await app.server.listen({ port: config.PORT, host: config.HOST });
const shown = address.replace('0.0.0.0', 'localhost');

// Plain lines for the person who just ran `npm start`; the JSON logs are for machines.
const banner = `\nQuire is listening on ${shown} (data in ${config.QUIRE_DATA_DIR})\n`;
if (config.QUIRE_ROLE === 'worker') {
  process.stdout.write(
    `\nQuire worker is listening on ${shown} for /health only; it converts what the cluster queues in Redis\n\n`,
  );
} else if (app.firstKey) {
  process.stdout.write(
    `${banner}First API key for team "${config.QUIRE_DEFAULT_TEAM}" (shown once, store it now):\n\n  ${app.firstKey}\n\n` +
      `Try: curl -H "Authorization: Bearer ${app.firstKey}" -F file=@page.html ${shown}/v2/parse\n` +
      'More keys: npm run quire -- keys create --team <name>\n\n',
  );
} else {
  process.stdout.write(
    `${banner}API keys: npm run quire -- keys list | create --team <name> | revoke <id>\n\n`,
  );
}

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  app.server.log.info({ signal }, 'shutting down; finishing in-flight requests');
  const force = setTimeout(() => {
    app.server.log.error('in-flight requests did not finish in time; exiting');
    process.exit(1);
  }, config.QUIRE_SHUTDOWN_GRACE_MS);
  force.unref();
  await app.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
