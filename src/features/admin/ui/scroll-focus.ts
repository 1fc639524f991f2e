/// <reference lib="dom" />
/**
 * A table wider than the screen scrolls inside itself (phone width); a keyboard user scrolls it
 * only once it can take focus. Such tables get `tabindex="0"` while they overflow, and lose it
 * (only the one set here) when they fit again.
 */
const MARK = "data-scroll-focus";

export function keepScrollingTablesFocusable(root: HTMLElement): () => void {
  // Once a frame at most, every width read before any attribute is written: one layout for a
  // page of thousands of tables (a long report), not one a table.
  let frame = 0;
  const mark = () => {
    if (!frame) frame = requestAnimationFrame(markNow);
  };
  const markNow = () => {
    frame = 0;
    const tables = [...root.querySelectorAll("table")];
    const overflowing = tables.map((table) => table.scrollWidth > table.clientWidth);
    tables.forEach((table, i) => {
      const scrolls = overflowing[i];
      if (scrolls && !table.hasAttribute("tabindex")) {
        table.setAttribute("tabindex", "0");
        table.setAttribute(MARK, "");
      } else if (!scrolls && table.hasAttribute(MARK)) {
        table.removeAttribute("tabindex");
        table.removeAttribute(MARK);
      }
    });
  };
  // Attributes are not observed, so the ones set here never call `mark` again.
  const observer = new MutationObserver(mark);
  observer.observe(root, { childList: true, subtree: true, characterData: true });
  addEventListener("resize", mark);
  markNow();
  return () => {
    cancelAnimationFrame(frame);
    observer.disconnect();
    removeEventListener("resize", mark);
  };
}
