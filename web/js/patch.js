// Redrawing by patching: a page builds its drawing whole from its state (as it always
// has: one function from the state to the elements, nothing remembered between drawings)
// and `patch` puts it in place of what is shown by changing only what differs.
//
// Why: a move must never wait for the page. The table is redrawn on nearly every event
// and most of a redraw is the browser's, not ours: styling and laying out every element
// put in, and for a card its picture (an SVG <use> of the vendored deck, whose hundreds of
// paths the browser copies again each time the card is put in the page). Replacing the
// whole felt cost 20-100 ms a redraw on this project's test machine, more beside another
// browser; patching leaves the hand, the seats and the panels that did not change where
// they are, and a bot's card costs the trick's few elements (the motion test measures it).
//
// What is kept and what is put in:
//   - a node equal to the new one (isEqualNode: the same tag, attributes and children) is
//     kept as it is;
//   - an element of the same tag and key is kept, its attributes made the new one's and
//     its children patched in turn; a key is the element's id, else its data-card, else
//     its data-key, and children are matched by key when every element among them has
//     one (a card played leaves its hand and the others stay), else by place when there
//     are as many, else the new children are put in;
//   - anything else is replaced by the new node;
//   - an element marked data-own-children keeps its children: the page puts them there.
// A kept node keeps what the browser holds on it: focus, a <details>' state, a list's
// scroll, an animation running.
//
// Handlers: a kept element must answer as the new one would (a card's click carries the
// view it was drawn from), so h() (ui.js) does not add a page's handlers to an element
// directly but keeps them on it (`ON`) behind one listener, and a kept element takes the
// new element's handlers.

/** Where h() keeps an element's handlers ({click: f}): the kept element takes them. */
export const ON = Symbol("handlers");

/** The one listener h() adds for each event type: it calls the element's handler now. */
export function dispatch(event) {
  return this[ON]?.[event.type]?.call(this, event);
}

/** Put ``next`` in place of ``old`` (in the page), changing only what differs; returns
 * the node now in the page (``old`` when it was kept). */
export function patch(old, next) {
  if (old === next) return old;
  if (old.isEqualNode(next)) {
    adoptHandlers(old, next);
    return old;
  }
  if (old.nodeType === Node.TEXT_NODE && next.nodeType === Node.TEXT_NODE) {
    old.data = next.data;
    return old;
  }
  if (!sameElement(old, next)) {
    old.replaceWith(next);
    return next;
  }
  patchAttributes(old, next);
  old[ON] = next[ON];
  // A place whose children the page puts there itself (the message line on the felt).
  if (!old.hasAttribute("data-own-children")) patchChildren(old, next);
  return old;
}

function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  return node.id || node.getAttribute("data-card") || node.getAttribute("data-key") || null;
}

function sameElement(a, b) {
  return a.nodeType === Node.ELEMENT_NODE && b.nodeType === Node.ELEMENT_NODE && a.namespaceURI === b.namespaceURI && a.tagName === b.tagName && keyOf(a) === keyOf(b);
}

/** Make ``old``'s attributes ``next``'s. */
export function patchAttributes(old, next) {
  for (const { name } of [...old.attributes]) if (!next.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of next.attributes) {
    if (old.getAttribute(name) === value) continue;
    // The page's Content-Security-Policy refuses a style set as an attribute (no
    // 'unsafe-inline'); set through the CSSOM, as h()'s callers set it, it is allowed.
    if (name === "style") old.style.cssText = next.style.cssText;
    else old.setAttribute(name, value);
  }
}

/** Two trees isEqualNode found equal: each kept element takes its twin's handlers. */
function adoptHandlers(old, next) {
  if (next[ON] || old[ON]) old[ON] = next[ON];
  let a = old.firstChild;
  let b = next.firstChild;
  while (a && b) {
    if (a.nodeType === Node.ELEMENT_NODE) adoptHandlers(a, b);
    a = a.nextSibling;
    b = b.nextSibling;
  }
}

/** The keys of ``nodes`` when every one is an element with a key of its own, else null. */
function keysOf(nodes) {
  const keys = nodes.map(keyOf);
  if (keys.some((k) => k === null) || new Set(keys).size !== keys.length) return null;
  return keys;
}

function patchChildren(old, next) {
  const was = [...old.childNodes];
  const now = [...next.childNodes];
  const oldKeys = keysOf(was);
  const newKeys = keysOf(now);
  if (oldKeys && newKeys) {
    const byKey = new Map(was.map((n, i) => [oldKeys[i], n]));
    const wanted = new Set(newKeys);
    for (const [key, n] of byKey) if (!wanted.has(key)) n.remove();
    let at = old.firstChild;
    now.forEach((n, i) => {
      const twin = byKey.get(newKeys[i]);
      // A node that h() put in the new drawing by reference (one kept across drawings,
      // the deck switch, say) has already left the old parent: it is simply put back.
      if (twin && twin.parentNode === old) {
        if (twin !== at) old.insertBefore(twin, at); // moved only when the order changed
        at = patch(twin, n).nextSibling;
      } else {
        old.insertBefore(n, at);
        at = n.nextSibling;
      }
    });
    return;
  }
  if (was.length === now.length) {
    was.forEach((n, i) => patch(n, now[i]));
    return;
  }
  old.replaceChildren(...now);
}
