// Self and inclusive time by function from a .cpuprofile, optionally only samples after --from seconds.
import { readFileSync } from 'node:fs';

const [file, fromS = '0', n = '40'] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map();
for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const self = new Map(),
  incl = new Map();
let t = p.startTime,
  total = 0;
const from = p.startTime + Number(fromS) * 1e6;
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i];
  if (t < from) return;
  const dt = p.timeDeltas[i + 1] ?? 0;
  const node = byId.get(id);
  const name = (x) =>
    `${x.callFrame.functionName || '(anon)'} ${x.callFrame.url.split('/').slice(-2).join('/')}:${x.callFrame.lineNumber + 1}`;
  if (node.callFrame.functionName === '(idle)') return;
  total += dt;
  self.set(name(node), (self.get(name(node)) ?? 0) + dt);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const nm = name(byId.get(cur));
    if (seen.has(nm)) continue;
    seen.add(nm);
    incl.set(nm, (incl.get(nm) ?? 0) + dt);
  }
});
console.log(`non-idle ${(total / 1000).toFixed(0)} ms`);
const top = (m) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(n))
    .map(([k, v]) => `${(v / 1000).toFixed(1).padStart(8)} ${k}`)
    .join('\n');
console.log(`--- self\n${top(self)}`);
console.log(`--- inclusive\n${top(incl)}`);
