/**
 * Where the desktop app finds its parts. In the repository the renderer and the icon sit next to
 * apps/desktop; in a packaged app electron-builder copies them into `resources/` (see
 * electron-builder.yml `extraResources`).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface AppPaths {
  readonly preload: string;
  readonly rendererIndex: string;
  /** file:// URL of the renderer index (no query): the only page trusted to use IPC. */
  readonly rendererFileUrl: string;
  readonly icon: string;
}

export interface AppLocation {
  readonly isPackaged: boolean;
  /** Electron's process.resourcesPath (packaged app). */
  readonly resourcesPath: string;
  /** apps/desktop/dist (where main.js and preload.cjs are). */
  readonly distDir: string;
}

export function resolveAppPaths(location: AppLocation): AppPaths {
  const rendererIndex = location.isPackaged
    ? join(location.resourcesPath, 'renderer', 'index.html')
    : join(location.distDir, '..', '..', 'renderer', 'dist', 'index.html');
  const icon = location.isPackaged
    ? join(location.resourcesPath, 'assets', 'icon.png')
    : join(location.distDir, '..', '..', '..', 'assets', 'icon.png');
  return {
    preload: join(location.distDir, 'preload.cjs'),
    rendererIndex,
    rendererFileUrl: pathToFileURL(rendererIndex).href,
    icon,
  };
}
