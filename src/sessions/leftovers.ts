import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Leaders of the process groups started for sessions under `root`, found by their command
 * line (never by name): browsers (their profile folder is there) and execute runs (their
 * scratch folder is). Helpers die with their group.
 */
export function leftoverProcesses(root: string): number[] {
  const folders = [`--user-data-dir=${root}${path.sep}`, `--allow-fs-write=${root}${path.sep}`];
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = readCmdline(Number(entry));
    if (
      cmdline?.some((arg) => folders.some((f) => arg.startsWith(f))) &&
      !cmdline.some((arg) => arg.startsWith('--type='))
    ) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

function readCmdline(pid: number): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

/**
 * Chromium keeps its process-singleton socket in a folder of its own in the host's temporary
 * folder (`org.chromium.Chromium.*`, which the profile's SingletonSocket links to) and removes it
 * only when it exits cleanly: every browser that was killed left one behind (found by the soak).
 * The folder, for the session to remove when it ends; undefined when the link names none there.
 */
export async function singletonFolder(userDataDir: string): Promise<string | undefined> {
  let socket: string;
  try {
    socket = await fs.promises.readlink(path.join(userDataDir, 'SingletonSocket'));
  } catch {
    return undefined;
  }
  const folder = path.dirname(socket);
  const ours =
    path.dirname(folder) === os.tmpdir() && /^org\.chromium\.Chromium\.\w+$/.test(path.basename(folder));
  return ours ? folder : undefined;
}
