// The platform's names said in the player's language, for every page: a ruleset, a bot's
// level, a table's status (each as the server wrote it when the catalogue does not know
// it), and a catalogue's sentence with page elements at its {marks}.

import { has, language, t } from "./i18n.js";

/** A ruleset's name as players say it ("club", "classic", "french", "gambler"). */
export function rulesetName(name) {
  return has(`pages.ruleset.${name}`) ? t(`pages.ruleset.${name}`) : name;
}

/** A bot's level ("easy", "medium", "hard"). */
export function levelName(level) {
  return has(`pages.level.${level}`) ? t(`pages.level.${level}`) : level;
}

/** A table's status ("open", "playing", ...). */
export function tableStatus(status) {
  return has(`pages.table_status.${status}`) ? t(`pages.table_status.${status}`) : status;
}

/** Why a match was dealt without drand: the randomness service's one reason
 * (libs/fairdeal/fairness.py decide_round) said in the player's language; any other as
 * the server wrote it. */
export function fallbackReason(reason) {
  return reason === "no verified drand value by the round's due time + 5 s" ? t("fair.fallback_reason") : reason;
}

/** A text of the catalogue with elements put at its {marks}: withElements(t("a.b"),
 * {link: h("a", ...)}) is the children to append (a mark it is not given stays). Each
 * language puts the elements where its sentence has them. */
export function withElements(text, elements) {
  return text
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 ? elements[part] ?? `{${part}}` : part))
    .filter((part) => part !== "");
}

/** A name of ours ("you", "bot 2 (easy)", "your side") at a sentence's start, with a
 * capital (a player's name is never given here: it stays as its owner wrote it). */
export function upFirst(text) {
  return text ? text[0].toLocaleUpperCase(language()) + text.slice(1) : text;
}
