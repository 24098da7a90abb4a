import type { Command } from 'commander';
import { describeConfig } from '../config.ts';

export function addConfigCommand(program: Command): void {
  program
    .command('config')
    .description('print every setting with its default and meaning')
    .action(() => {
      for (const row of describeConfig())
        process.stdout.write(`${row.name}=${row.fallback}\t${row.meaning}\n`);
    });
}
