/**
 * Ports in the shared contract: who listens on which socket, each listener named by identity and
 * tied to its run (and, later, its agent session). `treewarden ports --json` prints a
 * PortsReport; the UI's per-process and per-run port views will read the same rows.
 */
import { z } from 'zod';

export const portProtoSchema = z.enum(['tcp', 'udp']);
export type PortProto = z.infer<typeof portProtoSchema>;

const port = z.number().int().min(1).max(65_535);
/** Longest textual address: a full IPv6 address with an IPv4 tail and a zone id. */
const address = z.string().min(1).max(64);

export const portListenerSchema = z
  .object({
    port,
    proto: portProtoSchema,
    address,
    pid: z.number().int().positive(),
    startTime: z.string().min(1).max(64),
    args: z.array(z.string()),
    /** The run whose cookie the listener carries; null for processes no Treewarden run started. */
    runId: z.string().min(1).nullable(),
    /** The agent session the listener belongs to; null until sessions are recognised. */
    sessionId: z.string().min(1).nullable(),
  })
  .strict();
export type PortListenerRow = z.infer<typeof portListenerSchema>;

export const portsReportSchema = z
  .object({
    ports: z.array(portListenerSchema),
    /** Listening sockets held by processes Treewarden cannot inspect (other users'). */
    unattributed: z.array(z.object({ port, proto: portProtoSchema, address }).strict()),
    /** Processes skipped because their sockets could not be read. */
    skippedPids: z.number().int().nonnegative(),
  })
  .strict();
export type PortsReport = z.infer<typeof portsReportSchema>;

/** Sockets shown per process are capped: a server with thousands of bound ports is not a table row. */
export const MAX_LISTENING_PER_PROCESS = 64;

/** One socket a process listens on, as the UI shows it (`tcp 127.0.0.1:3000`). */
export const listeningSocketSchema = z.object({ proto: portProtoSchema, address, port }).strict();
export type ListeningSocket = z.infer<typeof listeningSocketSchema>;
