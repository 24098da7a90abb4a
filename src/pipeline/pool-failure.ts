import { ApiError } from '../errors.ts';
import { type Deadline, stopped } from './deadline.ts';
import type { PoolError } from './runner.ts';

/** A pool failure as the caller hears it (also the command line's message for a failed file). */
export function poolFailure(error: PoolError, clock: Deadline): Error {
  switch (error.failure.kind) {
    case 'aborted':
      return stopped(clock);
    case 'queue-full':
      return new ApiError(
        429,
        undefined,
        'Too many documents are waiting for conversion. Please retry later.',
        {
          headers: { 'retry-after': '5' },
        },
      );
    case 'worker-died':
      return new ApiError(
        400,
        'RESOURCE_LIMIT',
        'The document needs more memory to convert than one conversion may use, or its conversion crashed.',
      );
    case 'lost':
      return new ApiError(
        500,
        'UNKNOWN_ERROR',
        'The conversion was lost: the worker processes that took it stopped (killed or crashed) before it finished, once more after a retry. Please retry.',
      );
    case 'crashed':
      return error.failure.error;
  }
}
