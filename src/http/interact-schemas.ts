import { z } from 'zod';
import { limits } from '../limits.ts';

const between = (min: number, max: number) => `must be an integer from ${min} to ${max}`;
const intBetween = (min: number, max: number, fallback: number) =>
  z
    .number({ error: between(min, max) })
    .int({ error: between(min, max) })
    .min(min, { error: between(min, max) })
    .max(max, { error: between(min, max) })
    .default(fallback);

/**
 * Upstream's create body (behaviour doc §7). Its schema is not strict, so unknown keys are
 * dropped, as there; the known ones are checked and named when wrong.
 */
export const createSessionBody = z.object({
  ttl: intBetween(limits.sessionTtlMinS, limits.sessionTtlMaxS, limits.sessionTtlDefaultS),
  activityTtl: intBetween(
    limits.sessionActivityTtlMinS,
    limits.sessionActivityTtlMaxS,
    limits.sessionActivityTtlDefaultS,
  ),
  streamWebView: z.boolean({ error: 'must be a boolean' }).default(true),
  recordSession: z.boolean({ error: 'must be a boolean' }).optional(),
  profile: z
    .object({
      name: z
        .string({ error: `must be a string of 1 to ${limits.profileNameChars} characters` })
        .min(1, { error: `must be a string of 1 to ${limits.profileNameChars} characters` })
        .max(limits.profileNameChars, {
          error: `must be a string of 1 to ${limits.profileNameChars} characters`,
        }),
      saveChanges: z.boolean({ error: 'must be a boolean' }).default(true),
    })
    .optional(),
  integration: z.string({ error: 'must be a string' }).nullable().optional(),
  origin: z.string({ error: 'must be a string' }).optional(),
});

/** Upstream's execute body; not strict there either (controllers/v2/browser.ts), so unknown keys go. */
export const executeBody = z.object({
  code: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .refine((code) => Buffer.byteLength(code) <= limits.executeCodeBytes, {
      error: `must be at most ${limits.executeCodeBytes} bytes`,
    }),
  language: z
    .enum(['node', 'python', 'bash'], { error: 'must be one of node, python, bash' })
    .default('node'),
  timeout: intBetween(limits.executeTimeoutMinS, limits.executeTimeoutMaxS, limits.executeTimeoutDefaultS),
  origin: z.string({ error: 'must be a string' }).optional(),
});

export const listSessionsQuery = z.strictObject({
  status: z.enum(['active', 'destroyed'], { error: 'must be active or destroyed' }).optional(),
});
