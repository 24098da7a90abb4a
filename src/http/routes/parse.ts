import type { FastifyInstance } from 'fastify';
import { badRequest, tooDeep } from '../../errors.ts';
import { limits } from '../../limits.ts';
import { validateParseOptions } from '../../options/validate.ts';
import { type ConvertDeps, convertToAnswer, reserveCredits } from '../../pipeline/convert-to-answer.ts';
import { deadline } from '../../pipeline/deadline.ts';
import type { Credits } from '../../quota/credits.ts';
import { type TeamSettingsCache, underZdrPolicy } from '../../quota/team-settings.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import { jsonDepth } from '../json-depth.ts';
import { readParseUpload } from '../multipart.ts';
import { callerOf } from '../request-context.ts';

export interface ParseRouteDeps extends ConvertDeps {
  uploads: UploadBudget;
  teams: TeamSettingsCache;
  credits: Credits;
}

function parseOptionsField(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  if (jsonDepth(text, limits.jsonDepth) > limits.jsonDepth) throw tooDeep("The 'options' field");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`Invalid JSON in the 'options' field: ${(error as Error).message}`);
  }
}

export async function parseRoutes(app: FastifyInstance, deps: ParseRouteDeps): Promise<void> {
  // The body is read by the handler as a stream, whatever its content type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.post('/v2/parse', async (request, reply) => {
    const team = request.principal!.team;
    // Before a byte of the upload is read; given back unless the parse answers.
    const credit = await reserveCredits(deps.credits, request.principal!);
    try {
      // The upload's bytes count against the node's and the team's budget until the answer is sent.
      const hold = deps.uploads.open(team);
      reply.raw.once('close', hold.releaseAll);
      const upload = await readParseUpload(request.raw, hold);
      const options = underZdrPolicy(
        validateParseOptions(parseOptionsField(upload.options)),
        (await deps.teams.get(team)).zdr,
      );
      request.audit = {
        username: options.auditMetadata?.username ?? null,
        zeroDataRetention: options.zeroDataRetention,
        // Under zero data retention even the file's name stays out of the audit log.
        filename: options.zeroDataRetention ? null : upload.file.filename,
        bytes: upload.file.bytes.length,
      };
      const clock = deadline(options.timeout, 'parse', request.raw.socket);
      let body: Buffer;
      try {
        body = await convertToAnswer(deps, callerOf(request), { file: upload.file }, options, clock, credit);
      } finally {
        clock.done();
      }
      reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
      return body;
    } finally {
      await credit.release();
    }
  });
}
