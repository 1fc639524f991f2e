/// <reference lib="dom" />
/**
 * Lists paged through cursor connections, with the page and the filters in the query string
 * (`after` or `before`, and `from`, the position of the page's first row), so a reload or the
 * back button returns to the same page of the same filtered list.
 */
import { BASE, html, navigate } from "./html.ts";
import { pageSummary } from "./rules.ts";

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Page<T> {
  totalCount: number;
  nodes: T[];
  pageInfo: PageInfo;
}

/** The variables, arguments and selection of a paged field (`import * as paging`). */
export const VARS = "$first: Int, $after: String, $last: Int, $before: String";
export const ARGS = "first: $first, after: $after, last: $last, before: $before";
export const INFO = "totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }";

const params = () => new URLSearchParams(location.search);

/** A value of the query string when it is one of `allowed`, else `fallback`. */
export function param(name: string, allowed: readonly string[], fallback = ""): string {
  const value = params().get(name) ?? "";
  return allowed.includes(value) ? value : fallback;
}

const FIRST_PAGE = { after: "", before: "", from: "" };

/** The current page's path with `changes` to its query string (an empty value removes a key). */
function withParams(changes: Record<string, string | null>): string {
  const p = params();
  for (const [key, value] of Object.entries(changes)) value ? p.set(key, value) : p.delete(key);
  const query = p.toString();
  return location.pathname.slice(BASE.length) + (query ? "?" + query : "");
}

/** The paging variables of the page the URL names, `size` rows. */
export function variables(size: number) {
  const p = params();
  const before = p.get("before");
  return before
    ? { first: null, after: null, last: size, before }
    : { first: size, after: p.get("after"), last: null, before: null };
}

/** The position of the page's first row; the first page starts at 1 whatever the URL says. */
export const firstRow = (info: PageInfo) =>
  info.hasPreviousPage ? Math.max(1, Number(params().get("from")) || 1) : 1;

/**
 * "51–100 of 120 posts" and `rest`: which rows of how many the page shows; while the rows shown
 * are those of other variables (`stale`, the next page on its way), only that it is loading.
 */
export const shownOf = (page: Page<unknown>, one: string, stale: boolean, rest = "") =>
  stale
    ? "Loading…"
    : pageSummary(firstRow(page.pageInfo), page.nodes.length, page.totalCount, one) + rest;

/**
 * The previous and next page of the list just above it. Following either keeps the filters,
 * records the page in the history and moves focus to the list's caption.
 */
export function Pager(
  props: { page: Page<unknown>; size: number; label: string; stale: boolean },
) {
  const info = props.page.pageInfo;
  const from = firstRow(info);
  const go = (path: string) => (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    // The list's caption (which says which rows it shows), or the list: the link may go.
    const list = (event.currentTarget as HTMLElement).closest("nav")?.previousElementSibling;
    const target = list?.querySelector("caption") ?? list;
    navigate(path);
    if (target instanceof HTMLElement) {
      target.tabIndex = -1;
      target.focus();
    }
  };
  const link = (path: string, text: string) =>
    html`<a href=${BASE + path} onClick=${go(path)}>${text}</a>`;
  if (props.stale || (!info.hasPreviousPage && !info.hasNextPage)) return null;
  return html`<nav class="pager" aria-label=${props.label}>
    ${
    info.hasPreviousPage &&
    link(
      from - props.size > 1
        ? withParams({ before: info.startCursor, after: "", from: String(from - props.size) })
        : withParams(FIRST_PAGE),
      "Previous page",
    )
  }
    ${
    info.hasNextPage &&
    link(
      withParams({
        after: info.endCursor,
        before: "",
        from: String(from + props.page.nodes.length),
      }),
      "Next page",
    )
  }
  </nav>`;
}

/** A filter of a list kept in the query string; choosing a value shows the first page. */
export function Filter(
  props: {
    name: string;
    label: string;
    value: string;
    options: readonly (readonly [string, string])[];
  },
) {
  const id = props.name + "-filter";
  return html`
    <label for=${id}>${props.label}</label>
    <select id=${id} value=${props.value} onChange=${(e: Event) =>
      navigate(
        withParams({ ...FIRST_PAGE, [props.name]: (e.target as HTMLSelectElement).value }),
      )}>
          ${props.options.map(([value, text]) => html`<option value=${value}>${text}</option>`)}
        </select>
  `;
}
