import { execFileSync } from 'node:child_process';

/**
 * Turns core files off for this process and everything it starts (conversion workers, browsers
 * and their helpers inherit the limit). A worker that aborts on heap exhaustion, or a browser
 * that crashes, would otherwise leave its memory on disk: uploads under zero data retention,
 * session cookies. Node has no setrlimit, so util-linux's prlimit (essential on Debian) sets
 * both the soft and the hard limit, and the hard one cannot be raised again without privilege.
 * Returns why it could not, or undefined once done.
 */
export function disableCoreFiles(): string | undefined {
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), '--core=0:0'], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
