// The table's hot keys by their place on the keyboard (KeyboardEvent.code), not by the
// character they type: on a Russian or Bulgarian layout the key where a US keyboard has
// C types "с", on a French (AZERTY) one the key where it has A types "q". Seed 004's
// keys are places: C the cards on the table, A the trump, F the suit led, S whose turn,
// L the last trick, Space belote, Enter play; the arrows choose. "?" is the character
// wherever the layout puts it. What each key is called on the player's own layout
// comes from the browser (navigator.keyboard.getLayoutMap, where it exists), so the
// keys' help names the key the player sees; elsewhere, the US letter. The words said
// about the keys are the catalogue's (keys.*, words.js readKeys).

// Enter and the arrows: the action is the key's own name (KeyboardEvent.key), written
// once as a property name.
const SAME = Object.freeze(Object.fromEntries(Object.keys({ Enter: 0, ArrowLeft: 0, ArrowRight: 0, ArrowUp: 0, ArrowDown: 0 }).map((k) => [k, k])));

/** The action of each place: what onKey in tablekeys.js does with it. */
export const PLACES = Object.freeze({
  KeyC: "c",
  KeyA: "a",
  KeyF: "f",
  KeyS: "s",
  KeyL: "l",
  Space: " ",
  ...SAME,
  NumpadEnter: SAME.Enter,
});

/** The action a key event asks for (null: none). By place; an event with no place (a
 * virtual keyboard, an old browser) by the character it types, as before. */
export function actionOf(e) {
  if (e.key === "?") return "?";
  if (e.code && Object.hasOwn(PLACES, e.code)) return PLACES[e.code];
  if (e.code && e.code !== "Unidentified") return null;
  const key = typeof e.key === "string" && e.key.length === 1 ? e.key.toLowerCase() : e.key;
  return Object.values(PLACES).includes(key) ? key : null;
}

/** The letter keys' names on the player's layout: {KeyC: "С", ...} (US letters where
 * the browser cannot tell). */
export async function keyNames(keyboard = globalThis.navigator?.keyboard) {
  const names = { KeyC: "C", KeyA: "A", KeyF: "F", KeyS: "S", KeyL: "L" };
  try {
    const map = await keyboard?.getLayoutMap?.();
    for (const code of Object.keys(names)) {
      const typed = map?.get?.(code);
      if (typeof typed === "string" && typed.length === 1) names[code] = typed.toUpperCase();
    }
  } catch {
    // No layout map (not allowed here, or no physical keyboard): the US letters.
  }
  return names;
}
