/** `[p. N]` on a line of its own: where a page of an imported document begins (N its label or number). */
const PAGE_MARKER = /^\[p\. ([^\]\n]{1,24})\]$/gm;
/** `[picture N](/api/files/…)`: where the text read from a note's Nth picture begins. */
const PICTURE_MARKER = /\[picture (\d{1,6})\]\(\/api\/files\/\d+\)/g;

/** Where a passage sits in its note: the page and the picture whose markers come last at or before its start, or null. */
export interface PassagePlace {
  /** A page number as a number; a label that is not one (`iii`, `A-3`) as written. */
  page: number | string | null;
  picture: number | null;
}

/** The markers of one note, found once, for all of its passages. */
export function passagePlaces(content: string): (start: number) => PassagePlace {
  const pages = [...content.matchAll(PAGE_MARKER)].map((match) => ({ at: match.index, value: pageValue(match[1]!) }));
  const pictures = [...content.matchAll(PICTURE_MARKER)].map((match) => ({ at: match.index, value: Number(match[1]) }));
  return (start) => ({ page: lastAtOrBefore(pages, start), picture: lastAtOrBefore(pictures, start) });
}

function lastAtOrBefore<T>(markers: { at: number; value: T }[], position: number): T | null {
  let low = 0;
  let high = markers.length - 1;
  let found: T | null = null;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (markers[middle]!.at <= position) {
      found = markers[middle]!.value;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/** "12" is page 12, a number, as a reader (and a client comparing it) expects; "iii" stays a label. */
function pageValue(label: string): number | string {
  return /^[1-9]\d{0,8}$/.test(label) ? Number(label) : label;
}
