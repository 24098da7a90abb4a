import type { Command } from 'commander';

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the Quire server, as npm start does')
    .option('--port <port>', 'TCP port to listen on (sets PORT; default 3002)')
    .option('--host <host>', 'interface to bind (sets HOST; default 0.0.0.0)')
    .option(
      '--role <role>',
      'api, worker or all: what this process does in a cluster (sets QUIRE_ROLE; default all; api and worker need QUIRE_REDIS_URL)',
    )
    .addHelpText(
      'after',
      '\nEvery other setting comes from the environment (quire config lists them). npm start also installs the\nDebian packages conversions need (tesseract); outside npm, run scripts/install-system-deps.sh run once.',
    )
    .action(async (opts: { port?: string; host?: string; role?: string }) => {
      // The server reads its settings from the environment when it loads, so they are set first.
      if (opts.port !== undefined) process.env.PORT = opts.port;
      if (opts.host !== undefined) process.env.HOST = opts.host;
      if (opts.role !== undefined) process.env.QUIRE_ROLE = opts.role;
      await import('../main.ts');
    });
}
