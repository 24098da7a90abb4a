#!/bin/sh
//bin/true; n="$(dirname "$(readlink -f "$0")")/../../node_modules/.bin/node"; [ -x "$n" ] || n=node; exec "$n" "$0" "$@"
// The two lines above are run by sh, for which the second is a command, and read by Node as a
// comment: they start this file with the repository's own Node 24 (the `node` devDependency, which
// strips the types), as `npm start` does, even where the machine's `node` is older. Without it
// (installed with --omit=dev), the `node` on PATH runs it and must be 24 or later.
import { Command, CommanderError } from 'commander';
import { addAuditCommand } from './audit.ts';
import { addConfigCommand } from './config.ts';
import { addConvertCommand } from './convert.ts';
import { addKeysCommand } from './keys.ts';
import { addServeCommand } from './serve.ts';
import { addTeamsCommand } from './teams.ts';

// Errors come back here rather than exiting inside commander, so that a usage mistake exits with
// 2 (a failed conversion exits with 1) and every subcommand inherits that.
const program = new Command('quire')
  .description('Quire: documents to Markdown, as a local command or a self-hosted server')
  .exitOverride()
  .showHelpAfterError('(add --help for usage)');
// Each adds itself with program.command(), which passes these settings on to it.
addConvertCommand(program);
addServeCommand(program);
addKeysCommand(program);
addTeamsCommand(program);
addAuditCommand(program);
addConfigCommand(program);

// A reader that stops early (`quire convert a.pdf | head`) is no failure: stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

try {
  await program.parseAsync();
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 1 ? 2 : error.exitCode;
}
