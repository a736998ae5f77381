/**
 * The native capabilities the engine's Linux safety relies on, probed without side effects:
 * koffi (the FFI every native call goes through), pidfd signalling (a signal that cannot reach a
 * recycled pid) and the child subreaper (a guardian that adopts escaped descendants). Without
 * them the engine still works, with weaker guarantees, so a missing one must be said out loud,
 * never fall back silently (a packaging mistake once stripped koffi from the app).
 */
import { createRequire } from 'node:module';
import { loadPidfd } from './pidfd.js';

const PR_GET_CHILD_SUBREAPER = 37;

export interface NativeCapabilities {
  readonly platform: NodeJS.Platform;
  /** Null when koffi loaded; otherwise why it did not. */
  readonly koffiError: string | null;
  readonly pidfd: boolean;
  /** prctl(PR_SET_CHILD_SUBREAPER) is reachable (probed with the read-only PR_GET_…). */
  readonly subreaper: boolean;
}

interface KoffiModule {
  load(path: string): { func(definition: string): (...args: unknown[]) => unknown };
}

function loadKoffi(): { koffi: KoffiModule } | { error: string } {
  try {
    return { koffi: createRequire(import.meta.url)('koffi') as KoffiModule };
  } catch (error) {
    return { error: error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error) };
  }
}

function canReachSubreaper(koffi: KoffiModule): boolean {
  try {
    const prctl = koffi
      .load('libc.so.6')
      .func('int prctl(int, _Out_ int *, unsigned long, unsigned long, unsigned long)');
    return prctl(PR_GET_CHILD_SUBREAPER, [0], 0, 0, 0) === 0;
  } catch {
    return false;
  }
}

export function readNativeCapabilities(platform: NodeJS.Platform = process.platform): NativeCapabilities {
  if (platform !== 'linux') return { platform, koffiError: null, pidfd: false, subreaper: false };
  const loaded = loadKoffi();
  if ('error' in loaded) return { platform, koffiError: loaded.error, pidfd: false, subreaper: false };
  return { platform, koffiError: null, pidfd: loadPidfd() !== null, subreaper: canReachSubreaper(loaded.koffi) };
}

/** One sentence per missing capability (Linux only: elsewhere none of them exists). */
export function capabilityWarnings(capabilities: NativeCapabilities): string[] {
  if (capabilities.platform !== 'linux') return [];
  if (capabilities.koffiError !== null) {
    return [
      `Native calls are unavailable (koffi did not load: ${capabilities.koffiError}): no pidfd signalling and no ` +
        'subreaper, so escaped descendants are found only by their run cookie and ancestry.',
    ];
  }
  const warnings: string[] = [];
  if (!capabilities.pidfd)
    warnings.push('pidfd signalling is unavailable (kernel older than 5.3, or blocked): signals are sent by pid.');
  if (!capabilities.subreaper)
    warnings.push('The child subreaper is unavailable: guardians cannot adopt descendants that escape their runs.');
  return warnings;
}
