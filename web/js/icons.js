// The table's few icons, drawn as inline SVG (a font may lack the emoji for a lock or a
// speaker: Chromium on a server draws an empty box). Each is decorative: the button that
// holds it carries the words (aria-label, title).

const SVG = "http://www.w3.org/2000/svg";

/** Each icon: its paths in a 16x16 box, stroked in the text's colour. */
const ICONS = Object.freeze({
  lock: ["M4.5 7V5a3.5 3.5 0 0 1 7 0v2", "M3 7h10v7H3z"],
  check: ["M3 8.5l3.2 3.2L13 4.8"],
  cross: ["M4 4l8 8", "M12 4l-8 8"],
  question: ["M5.5 6a2.5 2.5 0 1 1 3.6 2.2C8.4 8.6 8 9.1 8 10v0.5", "M8 12.6v0.4"],
  clock: ["M8 2.5a5.5 5.5 0 1 0 0.01 0z", "M8 5v3.3l2.2 1.5"],
  speaker: ["M2.5 6h2.5l3.5-3v10l-3.5-3H2.5z", "M11 5.5a3.5 3.5 0 0 1 0 5", "M12.8 3.6a6 6 0 0 1 0 8.8"],
  muted: ["M2.5 6h2.5l3.5-3v10l-3.5-3H2.5z", "M11 6l3.5 4", "M14.5 6L11 10"],
});

/** An icon as an <svg> element (aria-hidden). */
export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("width", "1em");
  svg.setAttribute("height", "1em");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", `icon icon-${name}`);
  for (const d of ICONS[name] ?? []) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    path.setAttribute("fill", "none");
    path.setAttribute("stroke", "currentColor");
    path.setAttribute("stroke-width", "1.6");
    path.setAttribute("stroke-linecap", "round");
    path.setAttribute("stroke-linejoin", "round");
    svg.append(path);
  }
  return svg;
}
