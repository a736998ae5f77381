import { describe, expect, it } from 'vitest';
import { createPortReader } from '../../src/ports/reader.js';
import { PortsUnsupportedError } from '../../src/ports/types.js';

describe('port reader selection', () => {
  it('says plainly that Windows is not supported yet, and names the platforms that are', () => {
    expect(() => createPortReader('win32')).toThrow(PortsUnsupportedError);
    expect(() => createPortReader('win32')).toThrow(/Windows is not supported yet.*supported: linux, android, darwin/);
    expect(() => createPortReader('aix')).toThrow(/no port reader for platform "aix"/);
  });

  it('picks /proc on Linux and lsof on macOS and the BSDs', () => {
    expect(createPortReader('linux').platform).toBe('linux');
    expect(createPortReader('darwin').platform).toBe('darwin');
    expect(createPortReader('freebsd').platform).toBe('freebsd');
  });
});
