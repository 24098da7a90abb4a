import { type Command, InvalidArgumentError, Option } from 'commander';
import { SETTINGS_TTL_MS } from '../quota/team-settings.ts';
import { type TeamPatch, type TeamSettings, teamDefaults, zdrPolicies } from '../store/store.ts';
import { withStore } from './keys.ts';

/** A whole number from `min`. */
function count(min: number) {
  return (text: string): number => {
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`must be a whole number from ${min}`);
    return n;
  };
}

/**
 * A whole number from `min`, or `default`: the server's default applies again. Kept as the word
 * here, as commander turns a parser's null into an empty string; `stored` makes it the store's null.
 */
const setting = (min: number) => (text: string) => (text === 'default' ? 'default' : count(min)(text));
const stored = (value: number | 'default' | undefined) => (value === 'default' ? null : value);

const onOff = (text: string): boolean => {
  if (text !== 'on' && text !== 'off') throw new InvalidArgumentError('must be on or off');
  return text === 'on';
};

/** One team's settings as `name=value` pairs; `default` where the server's environment decides. */
function fields(t: TeamSettings): [string, string][] {
  const or = (v: number | null, unit = '') => (v === null ? 'default' : `${v}${unit}`);
  const rate = (v: number | null) => (v === 0 ? 'off' : or(v, '/min'));
  return [
    ['concurrency', or(t.concurrency)],
    ['queue-depth', or(t.queueDepth)],
    ['rate', rate(t.ratePerMinute)],
    ['key-rate', rate(t.keyRatePerMinute)],
    ['audit', t.audit ? 'on' : 'off'],
    ['zdr', t.zdr],
    ['credits', t.credits === null ? 'unlimited' : String(t.credits)],
  ];
}

const line = (t: TeamSettings) =>
  `${t.team}  ${fields(t)
    .map(([k, v]) => `${k}=${v}`)
    .join('  ')}\n`;

const storeNote =
  '\nThe store is the one the server uses: QUIRE_DATABASE_URL when set, else QUIRE_DATA_DIR (default ./data).' +
  `\nA running server reads a team's settings again within ${SETTINGS_TTL_MS / 1000} s; credit balances at once.` +
  '\n"default" is the server\'s environment: QUIRE_TEAM_CONCURRENCY, QUIRE_RATE_LIMIT_PER_MINUTE, no limit per key;' +
  '\nfor the queue depth, no limit: requests over the concurrency wait until their own timeout.';

export function addTeamsCommand(program: Command): void {
  const teams = program
    .command('teams')
    .description("view and change teams' limits, audit, zero data retention and credits")
    .addHelpText('after', storeNote);
  teams
    .command('list')
    .description('every team with settings or keys, one a line')
    .action(() =>
      withStore(async (store, defaultTeam) => {
        const listed = await store.listTeams();
        // The default team may have only configured keys (QUIRE_API_KEYS), which the store does not hold.
        if (!listed.some((t) => t.team === defaultTeam)) listed.unshift(teamDefaults(defaultTeam));
        for (const t of listed) process.stdout.write(line(t));
        return 0;
      }),
    );
  teams
    .command('show')
    .description("one team's settings, one a line")
    .argument('<team>')
    .action((team: string) =>
      withStore(async (store) => {
        const t = (await store.getTeam(team)) ?? teamDefaults(team);
        process.stdout.write(`team ${t.team}\n`);
        for (const [k, v] of fields(t)) process.stdout.write(`${k} ${v}\n`);
        return 0;
      }),
    );
  teams
    .command('set')
    .description("change a team's settings (the others stay as they are)")
    .argument('<team>')
    .option('--concurrency <n|default>', 'parses the team runs at once; more wait', setting(1))
    .option(
      '--queue-depth <n|default>',
      'requests that may wait for those at once; more are refused with 429; 0: none wait',
      setting(0),
    )
    .option('--rate <n|default>', 'requests per minute for the team; 0: no limit', setting(0))
    .option('--key-rate <n|default>', 'requests per minute for each of its keys; 0: no limit', setting(0))
    .option('--audit <on|off>', 'whether its requests write audit events', onOff)
    .addOption(
      new Option('--zdr <policy>', 'zero data retention: per request, on every request, or refused').choices(
        zdrPolicies,
      ),
    )
    .action(
      (
        team: string,
        opts: {
          concurrency?: number | 'default';
          queueDepth?: number | 'default';
          rate?: number | 'default';
          keyRate?: number | 'default';
          audit?: boolean;
          zdr?: TeamSettings['zdr'];
        },
      ) =>
        withStore(async (store) => {
          const patch: TeamPatch = {
            concurrency: stored(opts.concurrency),
            queueDepth: stored(opts.queueDepth),
            ratePerMinute: stored(opts.rate),
            keyRatePerMinute: stored(opts.keyRate),
            audit: opts.audit,
            zdr: opts.zdr,
          };
          process.stdout.write(line(await store.updateTeam(team, patch)));
          return 0;
        }),
    );
  teams
    .command('credit')
    .description("change a team's credit balance; a parse or scrape costs 1, plus 1 per PDF page")
    .argument('<team>')
    .addOption(
      new Option('--add <n>', 'add to the balance').argParser(count(1)).conflicts(['set', 'unlimited']),
    )
    .addOption(new Option('--set <n>', 'set the balance').argParser(count(0)).conflicts('unlimited'))
    .option('--unlimited', 'no balance: the team is never refused for credits')
    .action((team: string, opts: { add?: number; set?: number; unlimited?: true }) =>
      withStore(async (store) => {
        if (opts.add !== undefined) {
          const balance = await store.adjustCredits(team, opts.add);
          if (balance === null) {
            process.stderr.write(`team "${team}" has no balance (unlimited): give it one with --set\n`);
            return 1;
          }
        } else if (opts.set !== undefined || opts.unlimited) {
          await store.updateTeam(team, { credits: opts.set ?? null });
        } else {
          process.stderr.write('say --add N, --set N or --unlimited\n');
          return 2;
        }
        process.stdout.write(line((await store.getTeam(team))!));
        return 0;
      }),
    );
}
