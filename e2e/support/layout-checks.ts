/**
 * Geometry checks a person would make by eye: buttons fully inside the window and their
 * container with their label unclipped, ids clear of badges, and no disabled button without a reason.
 */
import type { Page } from '@playwright/test';

export interface Problem {
  what: string;
  detail: string;
}

/** Containers a button must stay inside (horizontally: vertical scrolling is expected). */
const CONTAINERS =
  '.topbar, .banner, .lease-head, section.run, .details, .activity, .toolbar, .scenario, .dialog-body, .history, .sidebar';

/** Every visible button that is on screen vertically: inside the viewport, its container, label whole. */
export async function clippedButtons(page: Page): Promise<Problem[]> {
  return page.evaluate((containers) => {
    const problems: Array<{ what: string; detail: string }> = [];
    const width = window.innerWidth;
    const height = window.innerHeight;
    const nameOf = (el: Element) =>
      `${el.textContent?.trim().slice(0, 30) || el.getAttribute('aria-label') || el.className} (${el.closest('[aria-label]')?.getAttribute('aria-label') ?? ''})`;
    for (const button of Array.from(document.querySelectorAll('button'))) {
      const box = button.getBoundingClientRect();
      const style = getComputedStyle(button);
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue;
      if (box.bottom <= 0 || box.top >= height) continue; // scrolled out of view, not clipped
      // Hidden by a scrolling ancestor (a list scrolled past it) is not a layout fault either.
      const scroller = button.parentElement?.closest('.outcomes, .runs, .view, .lease-list, .system-scroll, .details');
      if (scroller) {
        const area = scroller.getBoundingClientRect();
        if (box.bottom <= area.top || box.top >= area.bottom) continue;
      }
      if (box.left < -0.5 || box.right > width + 0.5)
        problems.push({ what: 'outside the window', detail: nameOf(button) });
      const container = button.closest(containers);
      if (container) {
        const outer = container.getBoundingClientRect();
        if (box.left < outer.left - 0.5 || box.right > outer.right + 0.5)
          problems.push({ what: 'outside its container', detail: nameOf(button) });
      }
      // Ellipsis is a design choice only where it is styled so and a tooltip carries the whole text.
      const whole = style.textOverflow === 'ellipsis' && button.title !== '';
      if (button.scrollWidth > button.clientWidth + 1 && !whole)
        problems.push({
          what: 'label clipped',
          detail: `${nameOf(button)} ${button.scrollWidth}>${button.clientWidth}`,
        });
      if (button.disabled && !button.title && !button.closest('[title]'))
        problems.push({ what: 'disabled without a reason (title)', detail: nameOf(button) });
    }
    return problems;
  }, CONTAINERS);
}

/** In each run card, the id, its badges, countdown and actions must not overlap one another. */
export async function overlappingRunHeads(page: Page): Promise<Problem[]> {
  return page.evaluate(() => {
    const problems: Array<{ what: string; detail: string }> = [];
    for (const head of Array.from(document.querySelectorAll('section.run .run-head'))) {
      const parts = [
        ...Array.from(
          head.querySelectorAll('.run-id, .run-meta .badge, .countdown, .run-count, .run-actions .btn, .copy'),
        ),
      ];
      const boxes = parts.map((part) => ({ part, box: part.getBoundingClientRect() }));
      for (let i = 0; i < boxes.length; i += 1)
        for (let j = i + 1; j < boxes.length; j += 1) {
          const a = boxes[i];
          const b = boxes[j];
          if (!a || !b || a.box.width === 0 || b.box.width === 0) continue;
          if (a.part.contains(b.part) || b.part.contains(a.part)) continue;
          const overlap =
            a.box.left < b.box.right - 0.5 &&
            b.box.left < a.box.right - 0.5 &&
            a.box.top < b.box.bottom - 0.5 &&
            b.box.top < a.box.bottom - 0.5;
          if (overlap)
            problems.push({
              what: 'overlap in a run header',
              detail: `${a.part.className}:${a.part.textContent} × ${b.part.className}:${b.part.textContent}`,
            });
        }
    }
    return problems;
  });
}

/** The header cells of the process grid that are laid out (not dropped by the container queries). */
export async function visibleColumns(page: Page, scope: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const header = document.querySelector(`${selector} .prow-header`);
    if (!header) return [];
    return Array.from(header.querySelectorAll('.cell'))
      .filter((cell) => cell.getBoundingClientRect().width > 0 && cell.textContent?.trim())
      .map((cell) => cell.textContent?.replace(/[▲▼]/g, '').trim() ?? '');
  }, scope);
}

/**
 * Zombie, escape and leak markers must be whole: they are the reason a person looks at a row. A
 * run/session membership mark may shrink (its whole text is its title) so the arguments keep room.
 */
export async function clippedMarkers(page: Page): Promise<Problem[]> {
  return page.evaluate(() => {
    const problems: Array<{ what: string; detail: string }> = [];
    for (const marker of Array.from(document.querySelectorAll('.marker:not(.marker-member)'))) {
      const cell = marker.closest('.cell-name');
      if (!cell) continue;
      const box = marker.getBoundingClientRect();
      const outer = cell.getBoundingClientRect();
      if (box.width === 0) continue;
      if (box.left < outer.left - 0.5 || box.right > outer.right + 0.5 || marker.scrollWidth > marker.clientWidth + 1)
        problems.push({ what: 'marker clipped', detail: marker.textContent ?? '' });
    }
    return problems;
  });
}

/** Sidebar names that are cut (clamped or ellipsized): two entries must never be told apart only by what is hidden. */
export async function cutSidebarNames(page: Page): Promise<Problem[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.sidebar .lease-name'))
      .filter((name) => name.getBoundingClientRect().width > 0)
      .filter((name) => name.scrollHeight > name.clientHeight + 1 || name.scrollWidth > name.clientWidth + 1)
      .map((name) => ({ what: 'sidebar name cut', detail: name.textContent ?? '' })),
  );
}

/** Header cells of process grids, and every Age cell, whose text does not fit ("18m …" says nothing). */
export async function clippedHeaders(page: Page): Promise<Problem[]> {
  return page.evaluate(() => {
    const problems: Array<{ what: string; detail: string }> = [];
    for (const cell of Array.from(document.querySelectorAll<HTMLElement>('.prow-header .cell, .prow .col-age'))) {
      const box = cell.getBoundingClientRect();
      if (box.width === 0 || !cell.textContent?.trim()) continue;
      const scroller = cell.closest('section.run, .system-view, .details');
      const outer = scroller?.getBoundingClientRect();
      const outside = outer !== undefined && box.right > outer.right + 0.5;
      // A number cell's text sits in its own clipping box (.cell-value): that box is what overflows.
      const text = cell.querySelector<HTMLElement>('.cell-value') ?? cell;
      if (text.scrollWidth > text.clientWidth + 1 || outside)
        problems.push({ what: 'column cell clipped', detail: cell.textContent ?? '' });
    }
    return problems;
  });
}

/** The longest Age a process can show before its days count ("2 d 04 h" is shorter). */
export const LONGEST_AGE = '23 h 59 min';

/**
 * Age cells of the system view that could not hold the longest age: the probe is laid out in each
 * cell's own font and padding, so the check does not depend on how long this machine has been up.
 */
export async function ageCellsTooNarrow(page: Page, scope: string): Promise<Problem[]> {
  return page.evaluate(
    ({ scope, longest }) => {
      const problems: Array<{ what: string; detail: string }> = [];
      const cell = document.querySelector<HTMLElement>(`${scope} .prow:not(.prow-header) .col-age`);
      if (!cell || cell.getBoundingClientRect().width === 0) return [{ what: 'no Age cell shown', detail: scope }];
      // The text's own box (.cell-value) is probed, never the cell: replacing the cell's content
      // would leave React updating a detached node.
      const text = cell.querySelector<HTMLElement>('.cell-value') ?? cell;
      const saved = text.textContent;
      text.textContent = longest;
      const needed = text.scrollWidth;
      const clipped = needed > text.clientWidth + 1;
      text.textContent = saved;
      if (clipped)
        problems.push({
          what: 'Age cell too narrow',
          detail: `${longest} needs ${needed}px, has ${text.clientWidth}px`,
        });
      return problems;
    },
    { scope, longest: LONGEST_AGE },
  );
}

/** The banners' height together (connection, warning, leak, pile-up). */
export async function bannersHeight(page: Page): Promise<number> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('.app > .banner, .app > .banners > .banner')).reduce(
      (sum, banner) => sum + banner.getBoundingClientRect().height,
      0,
    ),
  );
}
