/** Events the engine host pushes to every connected UI. */
import { z } from 'zod';
import { classificationSchema, killReportSchema, processNodeSchema, snapshotSchema } from './model.js';

export const eventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot'), snapshot: snapshotSchema }),
  /** System-wide table as a diff against the previous one (full on the first after watchSystem). */
  z.object({
    type: z.literal('systemDiff'),
    full: z.boolean(),
    upserts: z.array(processNodeSchema),
    /** `pid:startTime` keys of processes that are gone. */
    removed: z.array(z.string()),
  }),
  z.object({
    type: z.literal('runEnded'),
    runId: z.string(),
    classification: classificationSchema,
    exitCode: z.number().int().nullable(),
    /** The engine's message when it ended badly (e.g. "missing binary: … was not found (ENOENT)"). */
    error: z.string().nullable().optional(),
  }),
  z.object({ type: z.literal('killOutcome'), runId: z.string().nullable(), report: killReportSchema }),
]);
export type HostEvent = z.infer<typeof eventSchema>;
