/**
 * Loaded into every Node process of a coverage run (NODE_OPTIONS=--import, set by coverage.ts).
 * V8 writes a process's coverage when it exits, not when a signal ends it, and the conversion pool
 * ends its idle processes with SIGTERM: without this, what they ran would not count. A process
 * that handles SIGTERM itself (the server shuts down gracefully and then exits) is left to do so.
 */
process.once('SIGTERM', () => {
  if (process.listenerCount('SIGTERM') === 0) process.exit(143);
});
