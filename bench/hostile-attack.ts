import { hostileCases } from '../scripts/hostile/index.ts';
import { postParse } from './post-parse.ts';

// One hostile team's clients, in their own process so that reading their (large) answers never
// runs on the event loop that times the other team's requests (bench/hostile.ts). Sends the
// generated hostile set in a loop from QUIRE_ATTACK_CLIENTS clients to QUIRE_ATTACK_URL with
// QUIRE_ATTACK_KEY, and prints one line per answer: its status (0: no answer). Stops on SIGTERM.

const base = process.env.QUIRE_ATTACK_URL!;
const key = process.env.QUIRE_ATTACK_KEY!;
const clients = Number(process.env.QUIRE_ATTACK_CLIENTS);
const timeoutMs = Number(process.env.QUIRE_ATTACK_TIMEOUT_MS);
const files = hostileCases.map((c) => ({ c, bytes: c.build() }));
let attacking = true;
process.once('SIGTERM', () => {
  attacking = false;
});

function send(n: number): Promise<number> {
  const { c, bytes } = files[n % files.length]!;
  const options = { formats: ['markdown', 'html'], timeout: timeoutMs, ...c.options };
  return postParse(base, key, bytes, c.filename, options);
}

process.stdout.write(`ready ${files.length}\n`);
await Promise.all(
  Array.from({ length: clients }, async (_, i) => {
    for (let n = i * 7; attacking; n++) process.stdout.write(`${await send(n).catch(() => 0)}\n`);
  }),
);
