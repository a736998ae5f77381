import { describe, expect, it } from 'vitest';
import { containerFromCgroup } from '../../src/containers/cgroup-id.js';

const ID = 'cf7ad354b01cab318d158f9f9cd922b6c69abb69dcd10a2fe46b34587b68fbd8';

describe('containerFromCgroup', () => {
  it('reads Docker on cgroupfs (captured from this machine: cgroup v1 + v2 lines)', () => {
    const text = `9:name=systemd:/docker/${ID}\n4:memory:/docker/${ID}\n0::/docker/${ID}\n`;
    expect(containerFromCgroup(text)).toEqual({ runtime: 'docker', id: ID });
  });
  it('reads Docker under systemd, podman and containerd layouts', () => {
    expect(containerFromCgroup(`0::/system.slice/docker-${ID}.scope\n`)).toEqual({ runtime: 'docker', id: ID });
    expect(containerFromCgroup(`0::/machine.slice/libpod-${ID}.scope/container\n`)).toEqual({
      runtime: 'podman',
      id: ID,
    });
    expect(containerFromCgroup(`0::/kubepods/burstable/pod1/cri-containerd-${ID}.scope\n`)).toEqual({
      runtime: 'containerd',
      id: ID,
    });
    expect(containerFromCgroup(`0::/k8s.io/${ID}\n`)).toEqual({ runtime: 'containerd', id: ID });
  });
  it('finds none for host processes, short ids or look-alike names', () => {
    expect(containerFromCgroup('0::/\n4:memory:/process_api/eab14ac9834099ebc5c3bd3637623d80\n')).toBeNull();
    expect(containerFromCgroup('0::/user.slice/user-1000.slice/session-2.scope\n')).toBeNull();
    expect(containerFromCgroup(`0::/docker/${ID.slice(0, 12)}\n`)).toBeNull();
    expect(containerFromCgroup(`0::/system.slice/docker.service\n`)).toBeNull();
    expect(containerFromCgroup('')).toBeNull();
  });
});
