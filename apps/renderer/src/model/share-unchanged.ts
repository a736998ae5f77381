/**
 * Structural sharing between two host messages: the host sends a whole snapshot every poll, and
 * every part of it is a new object even when it reads exactly as before. A selector that returns
 * one of those parts (the orphans, the sessions, the counts) then re-rendered its component every
 * second though nothing it shows had changed. `shareUnchanged` gives back `next` with each part
 * that equals the same part of `previous` replaced by that previous object, so what did not
 * change keeps its identity and only what changed is new. For JSON data (plain objects, arrays,
 * primitives), as the host sends.
 */
export function shareUnchanged<T>(previous: unknown, next: T): T {
  if (Object.is(previous, next)) return next;
  if (typeof next !== 'object' || next === null || typeof previous !== 'object' || previous === null) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(previous)) return next;
    let same = previous.length === next.length;
    const shared = next.map((item, index) => {
      const kept = shareUnchanged(previous[index], item);
      if (kept !== previous[index]) same = false;
      return kept;
    });
    return (same ? previous : shared) as T;
  }
  if (Array.isArray(previous)) return next;
  const before = previous as Record<string, unknown>;
  const keys = Object.keys(next);
  let same = keys.length === Object.keys(before).length;
  const shared: Record<string, unknown> = {};
  for (const key of keys) {
    const kept = shareUnchanged(before[key], (next as Record<string, unknown>)[key]);
    if (kept !== before[key] || !(key in before)) same = false;
    shared[key] = kept;
  }
  return (same ? previous : shared) as T;
}
