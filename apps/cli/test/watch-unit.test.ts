/** `treewarden watch --print-unit`: the systemd --user unit and the launchd plist, as text. */
import { describe, expect, it } from 'vitest';
import { serviceUnit } from '../src/commands/watch-unit.js';

describe('serviceUnit', () => {
  it('quotes each ExecStart word for systemd, escaping quotes, backslashes and %', () => {
    const unit = serviceUnit('linux', '/opt/node 20/bin/node', '/home/u/100%"tw"/main.js');
    expect(unit).toContain('ExecStart="/opt/node 20/bin/node" "/home/u/100%%\\"tw\\"/main.js" "watch"\n');
    expect(unit).toContain('WantedBy=default.target');
  });

  it('writes a launchd plist on macOS with XML-escaped program arguments', () => {
    const plist = serviceUnit('darwin', '/usr/local/bin/node', '/Users/a&b/<tw>/main.js');
    expect(plist).toContain('<string>/Users/a&amp;b/&lt;tw&gt;/main.js</string>');
    expect(plist).toContain('<key>RunAtLoad</key>');
    expect(plist).not.toContain('ExecStart');
  });
});
