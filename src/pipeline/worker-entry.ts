import { limits } from '../limits.ts';
import { mayRaisePriority, setThreadsNice } from '../process-priority.ts';

// A conversion process's entry. It loads every converter before it can take a task, about a
// second of CPU, and processes start while others convert: the replacement of one killed at its
// timeout (a hostile file) started beside another team's small parses and slowed them. So it loads
// in the background (backgroundNice); each task then runs in the foreground (worker.ts). Where
// niceness could not be put back, it is never lowered.
if (mayRaisePriority) setThreadsNice(process.pid, limits.backgroundNice);

export default (await import('./worker.ts')).default;
