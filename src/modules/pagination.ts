export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

/** The contract's envelope: `pages` = ceil(total/size), 0 when there is nothing. */
export function pageOf<T>(items: T[], total: number, request: { page: number; size: number }): Page<T> {
  return { items, total, page: request.page, size: request.size, pages: Math.ceil(total / request.size) };
}
