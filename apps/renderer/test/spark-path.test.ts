/**
 * A curve's path leaves out the points inside a level run: a level curve then keeps one path as
 * samples arrive (the page does not draw it again), and no curve loses a point it showed.
 */
import { describe, expect, it } from 'vitest';
import { SPARK_HEIGHT, sparkPath } from '../src/components/sparkline';

/** The path's strokes, each as its vertices. */
function strokesOf(path: string): { x: number; y: number }[][] {
  const strokes: { x: number; y: number }[][] = [];
  for (const [, command, x, y] of path.matchAll(/([ML])(-?[\d.]+),(-?[\d.]+)/g)) {
    if (command === 'M') strokes.push([]);
    strokes.at(-1)?.push({ x: Number(x), y: Number(y) });
  }
  return strokes;
}

/** xorshift32: a fixed sequence, so a failure repeats. */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

describe('sparkline paths', () => {
  it('keeps one path for a level curve while its samples grow from 2 to 60', () => {
    const bottom = (SPARK_HEIGHT - 1).toFixed(2);
    for (let count = 2; count <= 60; count += 1) {
      expect(sparkPath(new Array<number>(count).fill(0), 'cpu')).toBe(`M0.00,${bottom} L100.00,${bottom}`);
      expect(sparkPath(new Array<number>(count).fill(40 * 1024 * 1024), 'memory')).toMatch(/^M0\.00,[\d.]+ L100\.00,/);
    }
  });

  it('keeps the corners of a level run around a change', () => {
    const strokes = strokesOf(sparkPath([0, 0, 0, 5, 0, 0, 0], 'cpu'));
    expect(strokes).toHaveLength(1);
    // Of 7 points 16.67 apart, the two inside the level runs (x 16.67 and 83.33) are left out.
    expect(strokes[0]?.map((point) => point.x)).toEqual([0, 33.33, 50, 66.67, 100]);
  });

  it('draws every point of any curve, gaps included, on a stroke through it', () => {
    const random = randomFrom(0x9e3779b9);
    let leftOut = 0;
    for (let trial = 0; trial < 300; trial += 1) {
      const count = 2 + Math.floor(random() * 40);
      // Runs of one value, a few other values, and gaps: what idle and busy processes give.
      const values = Array.from({ length: count }, () => {
        const draw = random();
        return draw < 0.1 ? null : draw < 0.7 ? 0 : Math.round(random() * 4) * 25;
      });
      const strokes = strokesOf(sparkPath(values, 'cpu'));
      const high = Math.max(10, ...values.filter((value) => value !== null));
      const heightOf = (value: number) => Number((SPARK_HEIGHT - 1 - (value / high) * (SPARK_HEIGHT - 2)).toFixed(2));
      // The same strokes (gaps) as a path with every point.
      const known = values.flatMap((value, index) => (value === null ? [] : [index]));
      const starts = known.filter((index) => values[index - 1] === null || index === 0);
      expect(strokes.map((stroke) => stroke[0]?.x)).toEqual(
        starts.map((index) => Number(((index * 100) / (count - 1)).toFixed(2))),
      );
      for (const index of known) {
        const x = Number(((index * 100) / (count - 1)).toFixed(2));
        const stroke = strokes.find(
          (candidate) => (candidate[0]?.x ?? Infinity) <= x && x <= (candidate.at(-1)?.x ?? -1),
        );
        if (stroke === undefined) throw new Error(`point ${index} of ${JSON.stringify(values)} is on no stroke`);
        const vertex = stroke.findIndex((point) => point.x >= x);
        const at = stroke[vertex];
        if (at?.x === x) continue;
        // Not a vertex: it lies inside a level segment at its own height.
        leftOut += 1;
        expect([stroke[vertex - 1]?.y, at?.y]).toEqual([heightOf(values[index] ?? -1), heightOf(values[index] ?? -1)]);
      }
    }
    // Level runs were there to leave out.
    expect(leftOut).toBeGreaterThan(100);
  });
});
