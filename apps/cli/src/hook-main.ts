/**
 * `treewarden hook AGENT`: what an agent's SessionStart/SessionEnd hook runs (see `hooks install`).
 * Reads one hook event as JSON on stdin (bounded in size and time), records the session or hands
 * its end to the detached reaper, and ALWAYS exits 0 with nothing on stdout: a hook must never
 * break the agent, and agents read a hook's stdout (Claude Code adds it to the context). Any
 * problem is one line on stderr.
 */
import {
  handleHookEvent,
  hookAgentNames,
  hookAgentOf,
  loadAgentRules,
  MAX_HOOK_INPUT_BYTES,
  parseHookEvent,
  statePaths,
} from '@treewarden/engine/hooks';

export const HOOK_USAGE = `treewarden hook ${hookAgentNames().join('|')}  (reads one hook event as JSON on stdin)`;
/** The agent writes its event at once; a stdin still open after this is not going to deliver one. */
export const HOOK_STDIN_TIMEOUT_MS = 400;
/** Whatever happens, the hook has exited by now (older Claude Code kills SessionEnd hooks at 1.5 s). */
export const HOOK_DEADLINE_MS = 900;

/** Up to MAX_HOOK_INPUT_BYTES of stdin, until EOF or the time bound; null when over the size bound. */
function readStdin(): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (text: string | null) => {
      clearTimeout(timer);
      process.stdin.removeAllListeners('data').removeAllListeners('end').removeAllListeners('error');
      process.stdin.pause();
      resolve(text);
    };
    const timer = setTimeout(() => finish(Buffer.concat(chunks).toString('utf8')), HOOK_STDIN_TIMEOUT_MS);
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_HOOK_INPUT_BYTES) finish(null);
      else chunks.push(chunk);
    });
    process.stdin.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => finish(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Always exits 0: a hook must never break the agent. */
const EXIT_OK = 0;

function writeErr(text: string): Promise<void> {
  return new Promise((resolve) => {
    process.stderr.write(text, () => resolve());
  });
}

async function complain(message: string): Promise<number> {
  await writeErr(`treewarden hook: ${message.replaceAll('\n', ' ')}\n`);
  return EXIT_OK;
}

async function handle(argv: readonly string[]): Promise<number> {
  const agent = argv.length === 1 ? hookAgentOf(argv[0] as string) : null;
  if (agent === null) return complain(`expected one agent (${hookAgentNames().join(', ')}), got "${argv.join(' ')}"`);
  if (process.stdin.isTTY === true) return complain('expects a hook event as JSON on stdin');
  const text = await readStdin();
  if (text === null) return complain(`stdin is over ${MAX_HOOK_INPUT_BYTES} bytes: not a hook event`);
  const event = parseHookEvent(text);
  if (typeof event === 'string') return complain(event);
  const paths = statePaths();
  const result = handleHookEvent(agent, event, {
    stateRoot: paths.root,
    ledgerFile: paths.ledgerFile,
    rules: loadAgentRules(paths.root).rules,
  });
  if (result.kind === 'ignored' && event.hook_event_name.startsWith('Session')) return complain(result.why);
  return EXIT_OK;
}

export async function runHook(argv: readonly string[]): Promise<number> {
  // The bound holds even if a read or a write hangs: exit 0, never block the agent.
  setTimeout(() => process.exit(EXIT_OK), HOOK_DEADLINE_MS).unref();
  try {
    return await handle(argv);
  } catch (error) {
    return complain(error instanceof Error ? error.message : String(error));
  }
}

export const HOOK_SUMMARY =
  "an agent's SessionStart/SessionEnd hook: record the session, end its leftovers (always exits 0)";
