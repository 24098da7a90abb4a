import { type Command, InvalidArgumentError } from 'commander';
import { withStore } from './keys.ts';

/** Events read from the store at a time, so that a long export never holds them all. */
const PAGE = 1000;

const isoTime = (text: string): string => {
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw new InvalidArgumentError('must be an ISO date or time (2026-01-31)');
  return at.toISOString();
};

export function addAuditCommand(program: Command): void {
  const audit = program.command('audit').description('read the audit log (one event per API request)');
  audit
    .command('export')
    .description('print audit events as JSON lines, in the order they were recorded')
    .requiredOption(
      '--since <time>',
      'events from this ISO date or time on (2026-01-31, 2026-01-31T12:00Z)',
      isoTime,
    )
    .option('--team <name>', "only this team's events")
    .addHelpText(
      'after',
      '\nThe store is the one the server uses: QUIRE_DATABASE_URL when set, else QUIRE_DATA_DIR (default ./data).',
    )
    .action((opts: { since: string; team?: string }) =>
      withStore(async (store) => {
        for (let afterSeq = 0; ; ) {
          const page = await store.readAudit({ since: opts.since, team: opts.team, afterSeq, limit: PAGE });
          for (const { seq, ...event } of page) process.stdout.write(`${JSON.stringify(event)}\n`);
          if (page.length < PAGE) return 0;
          afterSeq = page.at(-1)!.seq;
        }
      }),
    );
}
