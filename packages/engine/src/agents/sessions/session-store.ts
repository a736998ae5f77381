/**
 * Remembered agent sessions: one JSON file per session, written atomically (temp file + rename),
 * so a crash leaves either the old record or the new one, never a torn one. Bounded: at most
 * MAX_STORED_SESSIONS files and MAX_MEMBERS_PER_SESSION members each; ended sessions are forgotten
 * after ENDED_SESSION_RETENTION_MS. A file that fails validation is reported and skipped.
 * Remembered members can be cleaned up, so the store is trusted only when private to this user
 * (state/trust.ts): a foreign or shared directory is refused whole, a foreign record skipped.
 */
import { closeSync, constants, fstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFileAtomically } from '../../state/private-write.js';
import { checkPrivatePath, openPrivateFile } from '../../state/trust.js';
import { mergeSessionRecords } from './remember.js';
import { STORE_ID_PATTERN, type StoredSession, storedSessionSchema } from './store-schema.js';

export const AGENT_SESSIONS_DIR = 'agent-sessions';
export const MAX_STORED_SESSIONS = 500;
export const MAX_MEMBERS_PER_SESSION = 1000;
/** Ended sessions (and their leaks) stay visible this long, then are forgotten. */
export const ENDED_SESSION_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** A record larger than this is not read: 1000 members with bounded argv fit well below it. */
export const MAX_SESSION_FILE_BYTES = 4 * 1024 * 1024;
const STORE_DIR_MODE = 0o700;

export interface StoreProblem {
  readonly file: string;
  readonly message: string;
}

export interface StoreRead {
  readonly sessions: StoredSession[];
  readonly problems: StoreProblem[];
}

export function sessionsDir(stateRoot: string): string {
  return join(stateRoot, AGENT_SESSIONS_DIR);
}

function fileOf(dir: string, id: string): string {
  if (!STORE_ID_PATTERN.test(id)) throw new Error(`session id "${id}" is not a safe file name`);
  return join(dir, `${id}.json`);
}

function readText(file: string): string {
  const fd = openPrivateFile(file, constants.O_RDONLY);
  if (fd === null) throw new Error('gone while reading');
  try {
    if (fstatSync(fd).size > MAX_SESSION_FILE_BYTES) throw new Error(`larger than ${MAX_SESSION_FILE_BYTES} bytes`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function readOne(file: string): StoredSession {
  const parsed = storedSessionSchema.safeParse(JSON.parse(readText(file)));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid record: ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'rejected'}`);
  }
  return parsed.data;
}

export function readSessions(stateRoot: string): StoreRead {
  const dir = sessionsDir(stateRoot);
  const sessions: StoredSession[] = [];
  const problems: StoreProblem[] = [];
  // Throws StateDirError for a foreign or shared directory: nothing in it is believed.
  if (!checkPrivatePath(stateRoot, 'directory') || !checkPrivatePath(dir, 'directory')) return { sessions, problems };
  const names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  for (const name of names) {
    const file = join(dir, name);
    try {
      sessions.push(readOne(file));
    } catch (error) {
      problems.push({ file, message: error instanceof Error ? error.message : String(error) });
    }
  }
  sessions.sort((a, b) => a.startedAtMs - b.startedAtMs);
  return { sessions, problems };
}

function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: STORE_DIR_MODE });
  checkPrivatePath(dir, 'directory');
}

/** The record on disk for `file`, or null when absent or not believable (then ours replaces it). */
function readExisting(file: string): StoredSession | null {
  try {
    return readOne(file);
  } catch {
    return null;
  }
}

/**
 * Writes one record atomically (writePrivateFileAtomically). What another observer wrote since our last read is folded in first (`mergeSessionRecords`); the
 * window left between that read and the rename is one write, not one observation tick. Returns
 * the record as written.
 */
export function writeSession(stateRoot: string, session: StoredSession): StoredSession {
  const dir = sessionsDir(stateRoot);
  makePrivateDir(stateRoot);
  makePrivateDir(dir);
  const file = fileOf(dir, session.id);
  const onDisk = readExisting(file);
  const merged = onDisk === null ? session : mergeSessionRecords(onDisk, session);
  const bounded = { ...merged, members: merged.members.slice(-MAX_MEMBERS_PER_SESSION) };
  writePrivateFileAtomically(file, `${JSON.stringify(storedSessionSchema.parse(bounded))}\n`);
  return bounded;
}

/** One record by id, or null when absent or not believable. */
export function readSession(stateRoot: string, id: string): StoredSession | null {
  return readExisting(fileOf(sessionsDir(stateRoot), id));
}

export function forgetSession(stateRoot: string, id: string): void {
  rmSync(fileOf(sessionsDir(stateRoot), id), { force: true });
}

/**
 * Forgets ended sessions past retention, then the oldest ended ones (then the oldest of all) over
 * the count cap. `stillLeaking` keeps an ended session whose leaked members are alive, unless the
 * cap forces it out.
 */
export function pruneSessions(
  stateRoot: string,
  sessions: readonly StoredSession[],
  now: number,
  stillLeaking: (session: StoredSession) => boolean,
): StoredSession[] {
  const kept = sessions.filter((session) => {
    const expired =
      session.endedAtMs !== null && now - session.endedAtMs > ENDED_SESSION_RETENTION_MS && !stillLeaking(session);
    if (expired) forgetSession(stateRoot, session.id);
    return !expired;
  });
  const byAge = [...kept].sort(
    (a, b) => Number(a.endedAtMs === null) - Number(b.endedAtMs === null) || a.startedAtMs - b.startedAtMs,
  );
  while (byAge.length > MAX_STORED_SESSIONS) {
    const oldest = byAge.shift() as StoredSession;
    forgetSession(stateRoot, oldest.id);
  }
  return kept.filter((session) => byAge.includes(session));
}
