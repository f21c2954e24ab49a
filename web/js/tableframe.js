// The table page's frame: built on the first drawing and kept, so that a redraw patches
// the felt and each panel in their places (patch.js) and nothing else is rebuilt. It
// holds the table element (its data the state tests and styles read: tableElement), the
// felt's place, and beside it (under it on a phone) the places of the fair deal's panel,
// the score sheet, the log and the chat's slot. The felt fills the screen under the
// header, however high the header is drawn: its height is followed by a ResizeObserver,
// never read in a redraw. The page's message line is lent to the felt while the page is
// open (holdMessage) and given back when it closes (stop).

import { heldTrick, seatOf } from "./tablestate.js";
import { h, replace } from "./ui.js";

export class TableFrame {
  constructor(root) {
    this.root = root;
    this.els = null; // {table, felt, fair, sheet, log, side}: the page patches felt, fair, sheet and log in place
    this.headerWatch = null;
    this.message = null; // the page's message line (#message), held from the first drawing
  }

  /** The frame's elements, built now when the page holds none (the first drawing, or
   * the root drawn over since). */
  get() {
    if (this.els && this.root.contains(this.els.table)) return this.els;
    const f = { felt: h("div", { id: "felt" }), fair: h("div"), sheet: h("div"), log: h("div") };
    f.side = h("div", { class: "table-side", id: "side" }, f.fair, f.sheet, f.log, h("div", { id: "chat-slot", class: "chat-slot" }));
    f.table = h("div", { id: "table", class: "table-page" }, h("div", { class: "table-grid" }, f.felt, f.side));
    replace(this.root, f.table);
    const header = document.querySelector("header.top");
    if (header && !this.headerWatch) {
      this.headerWatch = new ResizeObserver(() => document.documentElement.style.setProperty("--top-h", `${header.offsetHeight}px`));
      this.headerWatch.observe(header);
    }
    this.els = f;
    return f;
  }

  /** The page's message line moves onto the felt, beside the hand, in a slot of its own:
   * a refusal shows where the player looks, and moves nothing. (Held from the first
   * drawing: a patch may take the slot out with it.) */
  holdMessage(felt) {
    const message = (this.message ??= document.getElementById("message"));
    const slot = felt.querySelector("#message-slot");
    if (message && slot && message.parentNode !== slot) slot.append(message);
  }

  /** The page closes: the header is no longer followed, and the message line goes back
   * above the page, for the next one. */
  stop() {
    this.headerWatch?.disconnect();
    const message = this.message ?? document.getElementById("message");
    if (message) document.body.insertBefore(message, document.getElementById("page"));
  }
}

/** The table element as the state makes it (its attributes are patched onto the
 * frame's): a class when it is this seat's turn, and its data: whose turn, the seat, the
 * match version, the table's status, the phase, the check and the seal, a live failure,
 * a trick held, the match, a move on its way. ``d``: the drawing (tablefelt.js Drawing). */
export function tableElement(s, d) {
  const v = s.view;
  const myTurn = d.myTurn;
  const dataset = { turn: myTurn ? "me" : v?.turn ?? "", seat: seatOf(s) ?? "", version: s.version, status: s.reply.status, phase: v?.phase ?? "", check: d.checkStatus, seal: d.seal, live: s.liveCheck.failed.length ? "fail" : "", held: heldTrick(s, myTurn) ? "true" : "", match: s.matchId ?? "", busy: s.busy ? "true" : "" };
  return h("div", { id: "table", class: `table-page${myTurn ? " my-turn" : ""}`, dataset });
}
