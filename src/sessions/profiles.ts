import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { folderBytes } from './disk-usage.ts';

/**
 * Parts of a Chromium profile that are caches, crash state or this run's own files: left out
 * when a profile is saved, so a profile keeps cookies, storage and settings and stays small.
 */
const transient = new Set([
  'Cache',
  'Code Cache',
  'GPUCache',
  'GPUPersistentCache',
  'DawnCache',
  'DawnGraphiteCache',
  'DawnWebGPUCache',
  'GrShaderCache',
  'GraphiteDawnCache',
  'ShaderCache',
  'Crashpad',
  'Crash Reports',
  'component_crx_cache',
  'Service Worker/CacheStorage',
  'Shared Dictionary/cache',
  'blob_storage',
  'DevToolsActivePort',
  'SingletonLock',
  'SingletonSocket',
  'SingletonCookie',
  'BrowserMetrics',
]);

/** Whether a path relative to the user-data-dir is one of those left out. */
const isTransient = (relative: string) => transient.has(relative.replace(/^Default\//, ''));

/**
 * Named profiles, per team: a saved copy of a session's user-data-dir. A session starts from a
 * copy, so readers never see a half-written profile; its one writer's copy replaces the saved
 * one when that session ends (after the browser has closed and flushed its cookies).
 */
export class Profiles {
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** Names become hashes, never paths, so no name can point outside the folder. */
  private dir(team: string, name: string): string {
    const key = createHash('sha256').update(`${team}\n${name}`).digest('hex').slice(0, 40);
    return path.join(this.root, key);
  }

  /** Copy the saved profile (if any) into a fresh session's user-data-dir. */
  async restore(team: string, name: string, userDataDir: string): Promise<void> {
    const saved = this.dir(team, name);
    if (!fs.existsSync(saved)) return;
    await fs.promises.cp(saved, userDataDir, { recursive: true, force: true });
  }

  /**
   * Replace the saved profile with the session's, swapping folders so a crash leaves one whole;
   * unless what would be saved takes more than `maxBytes`, measured before anything is copied,
   * which leaves the saved profile as it was.
   */
  async save(
    team: string,
    name: string,
    userDataDir: string,
    maxBytes: number,
  ): Promise<{ saved: boolean; bytes: number }> {
    const bytes = await folderBytes(userDataDir, isTransient);
    if (bytes > maxBytes) return { saved: false, bytes };
    const saved = this.dir(team, name);
    const fresh = `${saved}.new`;
    const old = `${saved}.old`;
    await fs.promises.rm(fresh, { recursive: true, force: true });
    await fs.promises.mkdir(this.root, { recursive: true });
    await fs.promises.cp(userDataDir, fresh, {
      recursive: true,
      filter: (source) => !isTransient(path.relative(userDataDir, source)),
    });
    await fs.promises.rm(old, { recursive: true, force: true });
    if (fs.existsSync(saved)) await fs.promises.rename(saved, old);
    await fs.promises.rename(fresh, saved);
    await fs.promises.rm(old, { recursive: true, force: true });
    return { saved: true, bytes };
  }

  async remove(team: string, name: string): Promise<boolean> {
    const saved = this.dir(team, name);
    if (!fs.existsSync(saved)) return false;
    await fs.promises.rm(saved, { recursive: true, force: true });
    return true;
  }

  /** Finish or undo a swap a crash interrupted. */
  recover(): void {
    if (!fs.existsSync(this.root)) return;
    for (const entry of fs.readdirSync(this.root)) {
      const full = path.join(this.root, entry);
      if (entry.endsWith('.new')) fs.rmSync(full, { recursive: true, force: true });
      else if (entry.endsWith('.old')) {
        const saved = full.slice(0, -'.old'.length);
        if (fs.existsSync(saved)) fs.rmSync(full, { recursive: true, force: true });
        else fs.renameSync(full, saved);
      }
    }
  }
}
