/**
 * Which session a container was attributed to, one small file per container
 * (`<state dir>/agent-containers/<container id>.json`). A `docker run -d` CLI exits at once, so only
 * the observer that saw the engine's `create` while the CLI lived can know; the record keeps that
 * judgement for later readers (`sessions`, `orphans`). Written once, atomically, by the observer;
 * never merged with the session records (no write races with the session store).
 */
import { closeSync, constants, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writePrivateFileAtomically } from '../../state/private-write.js';
import { checkPrivatePath, openPrivateFile } from '../../state/trust.js';
import { STORE_ID_PATTERN } from './store-schema.js';

export const AGENT_CONTAINERS_DIR = 'agent-containers';
const CONTAINER_ID = /^[0-9a-f]{64}$/;
/** Far more than one machine runs; bounds a read of a directory someone filled. */
const MAX_RECORDS = 5000;
const MAX_RECORD_BYTES = 64 * 1024;

export const containerEvidenceSchema = z
  .object({
    kind: z.enum(['creating-cli-member', 'mcp-server', 'compose-working-dir', 'bind-mount']),
    detail: z.string().max(1000),
  })
  .strict();

export const storedContainerSchema = z
  .object({
    version: z.literal(1),
    id: z.string().regex(CONTAINER_ID),
    sessionId: z.string().regex(STORE_ID_PATTERN),
    name: z.string().max(300),
    image: z.string().max(1000),
    /** Epoch ms: with the id, what a clean-up re-checks before stopping anything. */
    createdAtMs: z.number().nonnegative(),
    attributedAtMs: z.number().nonnegative(),
    evidence: z.array(containerEvidenceSchema).min(1).max(20),
  })
  .strict();

export type StoredContainer = z.infer<typeof storedContainerSchema>;

function dirOf(stateRoot: string): string {
  return join(stateRoot, AGENT_CONTAINERS_DIR);
}

export function writeStoredContainer(stateRoot: string, record: StoredContainer): void {
  const parsed = storedContainerSchema.parse(record);
  const dir = dirOf(stateRoot);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkPrivatePath(dir, 'directory');
  writePrivateFileAtomically(join(dir, `${parsed.id}.json`), `${JSON.stringify(parsed)}\n`);
}

/** Every believable record; unreadable or invalid files are skipped (never evidence). */
export function readStoredContainers(stateRoot: string): StoredContainer[] {
  const dir = dirOf(stateRoot);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  if (!checkPrivatePath(dir, 'directory')) return [];
  const out: StoredContainer[] = [];
  for (const name of names.slice(0, MAX_RECORDS)) {
    const fd = openPrivateFile(join(dir, name), constants.O_RDONLY);
    if (fd === null) continue;
    try {
      const text = readFileSync(fd, 'utf8');
      if (text.length > MAX_RECORD_BYTES) continue;
      const parsed = storedContainerSchema.safeParse(JSON.parse(text));
      if (parsed.success && `${parsed.data.id}.json` === name) out.push(parsed.data);
    } catch {
      // Not ours or half-written by a crashed writer: not evidence.
    } finally {
      closeSync(fd);
    }
  }
  return out;
}

/** Drops the record of a container the engine destroyed (its id never comes back). */
export function forgetStoredContainer(stateRoot: string, id: string): void {
  if (!CONTAINER_ID.test(id)) return;
  rmSync(join(dirOf(stateRoot), `${id}.json`), { force: true });
}
