import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * Builds what Quire serves at `/` (the playground) and `/docs` (the API reference) into
 * web/dist: the playground's TypeScript bundled with esbuild, Redoc's standalone bundle copied
 * from node_modules, and the pages. Everything the pages load comes from Quire itself, so they
 * work offline. `npm start` runs it first; the playground test runs it before it starts a server.
 */

const repoRoot = path.resolve(import.meta.dirname, '..');
const webDir = path.join(repoRoot, 'web');
export const webDistDir = path.join(webDir, 'dist');

export async function buildWeb(): Promise<void> {
  // Written beside the output and renamed over it, so a server reading web/dist never sees half a build.
  const staging = fs.mkdtempSync(path.join(webDir, '.dist-'));
  // mkdtemp makes it private; the server may run as another user (the container's).
  fs.chmodSync(staging, 0o755);
  try {
    await build({
      entryPoints: {
        'playground/app': path.join(webDir, 'playground/main.tsx'),
        'docs/docs': path.join(webDir, 'docs/docs.ts'),
      },
      outdir: staging,
      bundle: true,
      minify: true,
      format: 'esm',
      target: 'es2022',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      logLevel: 'warning',
    });
    for (const [from, to] of [
      ['web/playground/index.html', 'playground/index.html'],
      ['web/playground/style.css', 'playground/style.css'],
      ['web/docs/index.html', 'docs/index.html'],
      ['node_modules/redoc/bundles/redoc.standalone.js', 'docs/redoc.standalone.js'],
    ] as const) {
      fs.copyFileSync(path.join(repoRoot, from), path.join(staging, to));
    }
    fs.rmSync(webDistDir, { recursive: true, force: true });
    fs.renameSync(staging, webDistDir);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

if (import.meta.main) await buildWeb();
