/**
 * A browser is one session member: its main process with its profile directory, the rest of its
 * tree (zygotes, renderers, GPU, crashpad: members with role `browser` under another one) folded
 * into it by identity, so nothing it holds drops out of what a clean-up signals.
 */
import type { AgentSessionRow, FdUsage } from '@treewarden/protocol';

type MemberRow = AgentSessionRow['members'][number];

export interface MemberWithParent extends MemberRow {
  readonly ppid: number;
}

const USER_DATA_DIR = '--user-data-dir';

/** The `--user-data-dir` a browser was given (`--user-data-dir=X` or `--user-data-dir X`). */
export function browserProfileOf(args: readonly string[]): string | null {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg.startsWith(`${USER_DATA_DIR}=`)) return arg.slice(USER_DATA_DIR.length + 1) || null;
    if (arg === USER_DATA_DIR) return args[index + 1] ?? null;
  }
  return null;
}

function addFds(into: FdUsage | undefined, more: FdUsage | undefined): FdUsage | undefined {
  if (into === undefined || more === undefined) return into ?? more;
  return {
    open: into.open + more.open,
    inotifyWatches: into.inotifyWatches + more.inotifyWatches,
    openLimit: into.openLimit,
  };
}

/** Members in order, each browser tree as one row at its topmost browser process. */
export function foldBrowserTrees(members: readonly MemberWithParent[]): MemberRow[] {
  const browsers = new Map(members.filter((member) => member.role === 'browser').map((member) => [member.pid, member]));
  const topOf = (member: MemberWithParent): MemberWithParent => {
    let top = member;
    const seen = new Set<number>([top.pid]);
    for (let up = browsers.get(top.ppid); up !== undefined && !seen.has(up.pid); up = browsers.get(up.ppid)) {
      seen.add(up.pid);
      top = up;
    }
    return top;
  };
  const rows = new Map<number, MemberRow>();
  for (const member of members) {
    const { ppid: _ppid, ...row } = member;
    if (member.role !== 'browser') {
      rows.set(member.pid, row);
      continue;
    }
    const top = topOf(member);
    const folded = rows.get(top.pid) ?? browserRow(top);
    if (top.pid !== member.pid) {
      const fds = addFds(folded.fds, member.fds);
      rows.set(top.pid, {
        ...folded,
        tree: [...(folded.tree ?? []), { pid: member.pid, startTime: member.startTime }],
        ...(fds !== undefined ? { fds } : {}),
      });
    } else rows.set(top.pid, folded);
  }
  return foldCrashpad(rows);
}

const CRASHPAD = /(^|\/)chrome_crashpad_handler$/;

/**
 * Crashpad handlers double-fork away from their browser (reparented to init): found by their
 * session's markers, they go into the session's browser when it has just one to go into.
 */
function foldCrashpad(rows: Map<number, MemberRow>): MemberRow[] {
  const all = [...rows.values()];
  const handlers = all.filter((row) => row.role === 'browser' && CRASHPAD.test(row.args[0] ?? ''));
  const browsers = all.filter((row) => row.role === 'browser' && !CRASHPAD.test(row.args[0] ?? ''));
  const [only] = browsers;
  if (handlers.length === 0 || browsers.length !== 1 || only === undefined) return all;
  let into = only;
  for (const handler of handlers) {
    const fds = addFds(into.fds, handler.fds);
    into = {
      ...into,
      tree: [...(into.tree ?? []), { pid: handler.pid, startTime: handler.startTime }, ...(handler.tree ?? [])],
      ...(fds !== undefined ? { fds } : {}),
    };
  }
  const folded = new Set(handlers.map((handler) => handler.pid));
  return all.filter((row) => !folded.has(row.pid)).map((row) => (row.pid === into.pid ? into : row));
}

function browserRow(top: MemberWithParent): MemberRow {
  const { ppid: _ppid, ...row } = top;
  const profile = browserProfileOf(top.args);
  return { ...row, ...(profile !== null ? { profile } : {}), tree: [] };
}
