/// <reference lib="dom" />
/**
 * A table wider than the screen scrolls inside itself (phone width); a keyboard user scrolls it
 * only once it can take focus. Such tables get `tabindex="0"` while they overflow, and lose it
 * (only the one set here) when they fit again.
 */
const MARK = "data-scroll-focus";

export function keepScrollingTablesFocusable(root: HTMLElement): () => void {
  const mark = () => {
    for (const table of root.querySelectorAll("table")) {
      const scrolls = table.scrollWidth > table.clientWidth;
      if (scrolls && !table.hasAttribute("tabindex")) {
        table.setAttribute("tabindex", "0");
        table.setAttribute(MARK, "");
      } else if (!scrolls && table.hasAttribute(MARK)) {
        table.removeAttribute("tabindex");
        table.removeAttribute(MARK);
      }
    }
  };
  // Attributes are not observed, so the ones set here never call `mark` again.
  const observer = new MutationObserver(mark);
  observer.observe(root, { childList: true, subtree: true, characterData: true });
  addEventListener("resize", mark);
  mark();
  return () => {
    observer.disconnect();
    removeEventListener("resize", mark);
  };
}
