/** `treewarden watch --print-unit`: a systemd --user unit (Linux) or a launchd agent plist (macOS) that runs the watcher at login. */

function xmlEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** systemd splits ExecStart on spaces; quote each word and escape what its quoting treats specially. */
function systemdWord(word: string): string {
  return `"${word.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('%', '%%')}"`;
}

export function serviceUnit(platform: NodeJS.Platform, node: string, script: string): string {
  if (platform === 'darwin') {
    const args = [node, script, 'watch'].map((arg) => `    <string>${xmlEscape(arg)}</string>`).join('\n');
    return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>dev.treewarden.watch</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <true/>
</dict>
</plist>
`;
  }
  return `# ~/.config/systemd/user/treewarden-watch.service — then: systemctl --user enable --now treewarden-watch
[Unit]
Description=Treewarden: remember agent sessions and report their leaks

[Service]
ExecStart=${[node, script, 'watch'].map(systemdWord).join(' ')}
Restart=on-failure

[Install]
WantedBy=default.target
`;
}
