// The deck's colours, a player's choice kept on the browser (store.js "belot.cards.fourColour"):
// the usual two (♣ ♠ black, ♦ ♥ red), or four (♣ green, ♦ blue, ♥ red, ♠ black), so that
// a club is never taken for a spade at a glance. The choice is a class on <html>,
// "four-colour", which the stylesheet reads: every card on the page changes at once,
// none is drawn again.

import { t } from "./i18n.js";
import { store } from "./store.js";

/** The class on <html> that asks for the four-colour deck. */
export const FOUR_COLOUR_CLASS = "four-colour";

/** Whether this browser's player chose the four-colour deck. */
export function fourColour() {
  return store?.fourColour() ?? false;
}

/** Show every card in four colours (or two): the page's class, nothing drawn again. */
export function applyDeckStyle(on = fourColour()) {
  document.documentElement.classList.toggle(FOUR_COLOUR_CLASS, Boolean(on));
}

/** The switch the table shows: a labelled checkbox, checked when the four-colour deck is
 * on; changing it keeps the choice and applies it to the whole page. */
export function deckSwitch() {
  const box = document.createElement("input");
  box.type = "checkbox";
  box.checked = fourColour();
  box.addEventListener("change", () => {
    store?.saveFourColour(box.checked);
    applyDeckStyle(box.checked);
  });
  const label = document.createElement("label");
  label.className = "deck-switch";
  label.title = t("cards.four_colour_title");
  label.append(box, document.createTextNode(` ${t("cards.four_colour")}`));
  return label;
}
