// The table page's keyboard: seed 004's hot keys, answered through the live region
// (#speech): Enter plays the chosen card (or makes the chosen bid, or sits down), C the
// cards on the table, A the trump, F the suit led, S whose turn, Space announces belote
// and rebelote; and L the last trick, ? the keys. The arrows choose among the hand's cards
// (left, right) and between the bids and the hand (up, down); the choice is the focus,
// drawn visibly. Keys are read by their place, whatever the layout types there (keys.js).
//
// The page (table.js) owns one TableKeys: start() listens on the document, stop() stops.
// It reads the page's state (tablestate.js) and the page as drawn (the picks: what has a
// data-pick), and answers through the page's ``answer`` (spoken, and shown on the felt).

import { t } from "./i18n.js";
import { actionOf, keyNames } from "./keys.js";
import { chooseBelote, isMyTurn } from "./tablestate.js";
import { seatName } from "./tablenames.js";
import { speak } from "./ui.js";
import { andList, cardName, readKeys, readLed, readTable, readTrump, readTurn } from "./words.js";

export class TableKeys {
  /** ``root``: the page's element; ``state``: the page's (tablestate.js); ``page``: what a
   * key does to the page: answer(text) (spoken and shown on the felt), toggleLast(), and
   * changed() (redraw). */
  constructor(root, state, page) {
    this.root = root;
    this.state = state;
    this.page = page;
    this.stopped = false;
    this.names = undefined; // the letter keys' names on this keyboard's layout (keys.js keyNames)
    this.listener = (e) => this.onKey(e);
  }

  start() {
    document.addEventListener("keydown", this.listener);
    // The letter keys' names on this keyboard's layout, for the keys' help.
    keyNames().then((n) => {
      this.names = n;
    });
    document.addEventListener("keyup", this.listener);
  }

  stop() {
    this.stopped = true;
    document.removeEventListener("keydown", this.listener);
    document.removeEventListener("keyup", this.listener);
  }

  /** The keys' help, in words (? and the page's "Keys" link). */
  help() {
    return readKeys(this.names);
  }

  onKey(e) {
    if (this.stopped || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target;
    const typing = target && ((target.tagName === "INPUT" && target.type !== "checkbox") || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable);
    if (typing) return;
    const v = this.state.view;
    const names = (s) => seatName(this.state, s);
    const key = actionOf(e);
    if (e.type === "keyup") {
      // A button's own Space activates it on keyup: Space is belote here.
      if (key === " ") e.preventDefault();
      return;
    }
    const answers = { c: () => readTable(v, names), a: () => readTrump(v), f: () => readLed(v), s: () => readTurn(v, names, isMyTurn(this.state)), "?": () => this.help() };
    if (answers[key]) {
      e.preventDefault();
      this.page.answer(answers[key]());
    } else if (key === "l") {
      e.preventDefault();
      this.page.toggleLast();
    } else if (key === " ") {
      e.preventDefault();
      this.announceByKey();
    } else if (key === "Enter") {
      e.preventDefault();
      this.enter();
    } else if (key === "ArrowLeft" || key === "ArrowRight") {
      e.preventDefault();
      this.moveChoice(key === "ArrowLeft" ? -1 : 1);
    } else if (key === "ArrowUp" || key === "ArrowDown") {
      e.preventDefault();
      this.switchRow(key === "ArrowUp" ? "#bids" : "#hand");
    }
  }

  /** The things one may choose in a row: the bids and actions, or the hand's cards. */
  picks(row) {
    return [...this.root.querySelectorAll(`${row} [data-pick]`)];
  }

  currentRow() {
    const a = document.activeElement;
    if (a?.closest?.("#hand")) return "#hand";
    if (a?.closest?.("#bids")) return "#bids";
    return this.picks("#bids").length ? "#bids" : "#hand";
  }

  choose(el) {
    if (!el) return;
    el.focus();
    speak(el.dataset.said ?? el.getAttribute("aria-label") ?? el.textContent, true);
  }

  moveChoice(delta) {
    const row = this.currentRow();
    const items = this.picks(row);
    if (!items.length) return speak(row === "#hand" ? t("table.key.no_cards") : t("table.key.nothing"), true);
    const at = items.indexOf(document.activeElement);
    const next = at < 0 ? (delta > 0 ? 0 : items.length - 1) : (at + delta + items.length) % items.length;
    this.choose(items[next]);
  }

  switchRow(row) {
    const items = this.picks(row);
    if (!items.length) return speak(row === "#hand" ? t("table.key.no_cards") : t("table.key.no_bid"), true);
    this.choose(items.find((x) => x.classList.contains("legal")) ?? items[0]);
  }

  enter() {
    const a = document.activeElement;
    if (a?.dataset?.pick && this.root.contains(a)) {
      a.click();
      return;
    }
    const sit = this.root.querySelector("button.sit");
    if (sit) return sit.click();
    if (!isMyTurn(this.state)) return this.page.answer(readTurn(this.state.view, (s) => seatName(this.state, s), false));
    // Nothing chosen yet: choose the first thing one may do.
    const first = this.picks("#bids")[0] ?? this.picks("#hand").find((x) => x.classList.contains("legal"));
    this.choose(first);
  }

  announceByKey() {
    const legal = isMyTurn(this.state) ? this.state.view.legal : [];
    const cards = legal.filter((m) => m.type === "PlayCard" && m.belote).map((m) => m.card);
    if (!cards.length) return this.page.answer(t("table.key.no_belote"));
    chooseBelote(this.state, true);
    this.page.changed();
    this.page.answer(t("table.key.belote", { cards: andList(cards.map(cardName)) }));
  }
}
