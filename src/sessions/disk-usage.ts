import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Bytes the files under `dir` take on disk (allocated blocks, as `du` counts), leaving out
 * what `skip` names by its path relative to `dir`. Symbolic links are not followed; files that
 * vanish meanwhile count as nothing.
 */
export async function folderBytes(
  dir: string,
  skip: (relative: string) => boolean = () => false,
): Promise<number> {
  let total = 0;
  const walk = async (current: string): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (skip(path.relative(dir, full))) continue;
      if (entry.isDirectory()) await walk(full);
      else {
        const stat = await fs.promises.lstat(full).catch(() => undefined);
        if (stat) total += stat.blocks * 512;
      }
    }
  };
  await walk(dir);
  return total;
}

/**
 * Bytes each folder takes on disk, measured by one `du` process for all of them, so that
 * walking many session folders every second costs Quire's event loop one spawn. Folders that
 * are gone are left out. Falls back to walking in-process where `du` is missing.
 */
export function foldersBytes(dirs: readonly string[]): Promise<Map<string, number>> {
  return new Promise((resolve) => {
    execFile(
      'du',
      ['-s', '--block-size=1', '--', ...dirs],
      // A du stuck on a hung disk is killed; the next pass tries again.
      { maxBuffer: 1024 * 1024, timeout: 60_000 },
      // du exits 1 when a folder vanished during the walk; what it printed still holds.
      (error, stdout) => {
        if (error && 'code' in error && error.code === 'ENOENT') {
          void Promise.all(dirs.map(async (d) => [d, await folderBytes(d)] as const)).then((pairs) =>
            resolve(new Map(pairs.filter(([d]) => fs.existsSync(d)))),
          );
          return;
        }
        const sizes = new Map<string, number>();
        for (const line of stdout.split('\n')) {
          const tab = line.indexOf('\t');
          if (tab > 0) sizes.set(line.slice(tab + 1), Number(line.slice(0, tab)));
        }
        resolve(sizes);
      },
    );
  });
}
