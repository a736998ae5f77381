/**
 * Which container a process runs in, from the text of `/proc/PID/cgroup`. A container's processes
 * are children of `containerd-shim`/`conmon`, so no process tree leads back to whoever created it;
 * the cgroup path is the kernel's own record of the container, whatever the runtime.
 */

export type ContainerRuntime = 'docker' | 'podman' | 'containerd';

export interface CgroupContainer {
  readonly runtime: ContainerRuntime;
  /** The full 64-hex container id. */
  readonly id: string;
}

const ID = '([0-9a-f]{64})';
/**
 * One pattern per layout, most specific first: cgroupfs `docker/<id>`, systemd `docker-<id>.scope`,
 * podman `libpod-<id>` (and `libpod/<id>`), containerd/CRI `cri-containerd-<id>.scope` or a
 * namespace path ending in the id (`/k8s.io/<id>`, `/moby/<id>`).
 */
const LAYOUTS: readonly { readonly runtime: ContainerRuntime; readonly pattern: RegExp }[] = [
  { runtime: 'docker', pattern: new RegExp(`/docker[/-]${ID}(?:\\.scope)?(?:/|$)`) },
  { runtime: 'podman', pattern: new RegExp(`/libpod[/-]${ID}(?:\\.scope)?(?:/|$)`) },
  { runtime: 'containerd', pattern: new RegExp(`/cri-containerd-${ID}\\.scope(?:/|$)`) },
  { runtime: 'containerd', pattern: new RegExp(`/(?:k8s\\.io|moby|default)/${ID}(?:/|$)`) },
];

/** The container named by any line of a `/proc/PID/cgroup` text; null when the process is in none. */
export function containerFromCgroup(text: string): CgroupContainer | null {
  for (const line of text.split('\n')) {
    // `hierarchy-id:controllers:path`; the path may itself hold colons, so split on the first two.
    const second = line.indexOf(':', line.indexOf(':') + 1);
    if (second < 0) continue;
    const path = line.slice(second + 1);
    for (const { runtime, pattern } of LAYOUTS) {
      const match = pattern.exec(path);
      if (match?.[1] !== undefined) return { runtime, id: match[1] };
    }
  }
  return null;
}
